package seed001

import (
	"fmt"
	"math/big"
)

// polyCounts extrapolates integer step counts that are polynomials in N:
// count(n) for the points xs is taken from the model (each a full sim
// run), the polynomial of degree len(xs)-1 through them is evaluated at
// the check points (each also run: the extrapolation is used only when
// every check is exact) and then at target. Lagrange form, exact rational
// arithmetic.
func polyCounts(count func(n int) (map[string]int64, error), xs, checks []int, target int) (map[string]float64, error) {
	ys := make([]map[string]int64, len(xs))
	keys := map[string]bool{}
	for i, x := range xs {
		c, err := count(x)
		if err != nil {
			return nil, err
		}
		ys[i] = c
		for k := range c {
			keys[k] = true
		}
	}
	eval := func(k string, at int) *big.Rat {
		sum := new(big.Rat)
		for i, xi := range xs {
			term := new(big.Rat).SetInt64(ys[i][k])
			for j, xj := range xs {
				if j != i {
					term.Mul(term, big.NewRat(int64(at-xj), int64(xi-xj)))
				}
			}
			sum.Add(sum, term)
		}
		return sum
	}
	for _, x := range checks {
		c, err := count(x)
		if err != nil {
			return nil, err
		}
		for k := range keys {
			got := eval(k, x)
			if !got.IsInt() || got.Num().Int64() != c[k] {
				return nil, fmt.Errorf("%s is not a polynomial of degree %d in N: at N=%d the model counts %d, the polynomial through N=%v gives %s",
					k, len(xs)-1, x, c[k], xs, got.FloatString(1))
			}
		}
	}
	out := map[string]float64{}
	for k := range keys {
		f, _ := eval(k, target).Float64()
		out[k] = f
	}
	return out, nil
}
