package seed001

import (
	"fmt"
	"math/big"
)

// polyCounts2 is polyCounts in two variables, for counts that are
// polynomials in the number of subnets K and their size M: count(k, m) is
// taken from the model on the grid ks x ms, the polynomial of degree
// len(ks)-1 in K and len(ms)-1 in M through the grid (tensor-product
// Lagrange form, exact rational arithmetic) is checked to give the
// model's own counts at every check point, and is then evaluated at each
// target. Only the steps in keep are taken.
func polyCounts2(count func(k, m int) (map[string]int64, error), ks, ms []int, checks, targets []Layout, keep []string) ([]map[string]float64, error) {
	grid := make([][]map[string]int64, len(ks))
	for i, k := range ks {
		for _, m := range ms {
			c, err := count(k, m)
			if err != nil {
				return nil, err
			}
			grid[i] = append(grid[i], c)
		}
	}
	basis := func(xs []int, at int) []*big.Rat {
		out := make([]*big.Rat, len(xs))
		for i, xi := range xs {
			out[i] = big.NewRat(1, 1)
			for j, xj := range xs {
				if j != i {
					out[i].Mul(out[i], big.NewRat(int64(at-xj), int64(xi-xj)))
				}
			}
		}
		return out
	}
	eval := func(key string, at Layout) *big.Rat {
		bk, bm := basis(ks, at.K), basis(ms, at.M)
		sum := new(big.Rat)
		for i := range ks {
			for j := range ms {
				term := new(big.Rat).SetInt64(grid[i][j][key])
				term.Mul(term, bk[i])
				term.Mul(term, bm[j])
				sum.Add(sum, term)
			}
		}
		return sum
	}
	for _, at := range checks {
		c, err := count(at.K, at.M)
		if err != nil {
			return nil, err
		}
		for _, key := range keep {
			got := eval(key, at)
			if !got.IsInt() || got.Num().Int64() != c[key] {
				return nil, fmt.Errorf("%s is not a polynomial of degree %d in K and %d in M: at %d subnets of %d the model counts %d, "+
					"the polynomial through K=%v, M=%v gives %s", key, len(ks)-1, len(ms)-1, at.K, at.M, c[key], ks, ms, got.FloatString(1))
			}
		}
	}
	out := make([]map[string]float64, len(targets))
	for i, at := range targets {
		out[i] = map[string]float64{}
		for _, key := range keep {
			f, _ := eval(key, at).Float64()
			out[i][key] = f
		}
	}
	return out, nil
}
