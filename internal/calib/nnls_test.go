package calib

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"gonum.org/v1/gonum/mat"

	"github.com/rtnlsim/rtnlsim/internal/testseed"
)

// everySubset is the optimum NonNegLeastSquares must reach: the least
// squares of every subset of the free columns (the empty one included),
// the best one whose prices are all non-negative (the others at 0).
func everySubset(x [][]float64, fixed map[int]float64) ([]float64, float64) {
	k := len(x[0])
	var free []int
	for j := range k {
		if _, ok := fixed[j]; !ok {
			free = append(free, j)
		}
	}
	var best []float64
	bestErr := math.Inf(1)
	for mask := 0; mask < 1<<len(free); mask++ {
		var cols []int
		for b, j := range free {
			if mask&(1<<b) != 0 {
				cols = append(cols, j)
			}
		}
		p := make([]float64, k)
		for j, v := range fixed {
			p[j] = v
		}
		if len(cols) > 0 {
			a := mat.NewDense(len(x), len(cols), nil)
			y := mat.NewVecDense(len(x), nil)
			for i := range x {
				rest := 1.0
				for j, v := range fixed {
					rest -= x[i][j] * v
				}
				for c, j := range cols {
					a.Set(i, c, x[i][j])
				}
				y.SetVec(i, rest)
			}
			var sol mat.VecDense
			if err := sol.SolveVec(a, y); err != nil {
				continue
			}
			neg := false
			for c, j := range cols {
				p[j] = sol.AtVec(c)
				neg = neg || p[j] < 0
			}
			if neg {
				continue
			}
		}
		if e := sumSquares(x, p); e < bestErr {
			best, bestErr = p, e
		}
	}
	return best, bestErr
}

func sumSquares(x [][]float64, p []float64) float64 {
	sq := 0.0
	for i := range x {
		pred := 0.0
		for j := range p {
			pred += x[i][j] * p[j]
		}
		sq += (pred - 1) * (pred - 1)
	}
	return sq
}

// nnlsCase is a random design: rows x cols entries, each column at a
// scale of its own (the calibration's span seven orders of magnitude),
// sometimes fewer rows than columns, sometimes a column that is a near
// copy, an exact copy or the sum of others (as collinear steps are), some
// held at a price.
type nnlsCase struct {
	x      [][]float64
	fixed  map[int]float64
	shape  string
	narrow bool
}

var nnlsShapes = []string{"plain", "near copy", "exact copy", "sum"}

func genNNLSCase() gopter.Gen {
	return gopter.CombineGens(gen.IntRange(1, 8), gen.IntRange(-3, 6), gen.UInt64(), gen.IntRange(0, 2), gen.IntRange(0, len(nnlsShapes)-1)).Map(func(v []any) nnlsCase {
		cols, extra, seed, held, shape := v[0].(int), v[1].(int), v[2].(uint64), v[3].(int), v[4].(int)
		r := rand.New(rand.NewPCG(seed, 7))
		rows := max(1, cols+extra)
		scale := make([]float64, cols)
		for j := range scale {
			scale[j] = math.Pow(10, -8*r.Float64())
		}
		x := make([][]float64, rows)
		for i := range x {
			x[i] = make([]float64, cols)
			for j := range x[i] {
				// counts over time: non-negative, many zero
				if r.IntN(3) > 0 {
					x[i][j] = r.Float64() * scale[j]
				}
			}
		}
		if cols > 2 {
			for i := range x {
				switch nnlsShapes[shape] {
				case "near copy":
					x[i][cols-1] = x[i][0] * (1 + 1e-3*r.Float64())
				case "exact copy":
					x[i][cols-1] = x[i][0]
				case "sum":
					x[i][cols-1] = x[i][0] + x[i][1]
				}
			}
		}
		fixed := map[int]float64{}
		for range min(held, cols-1) {
			j := r.IntN(cols)
			fixed[j] = r.Float64() / scale[j]
		}
		return nnlsCase{x, fixed, nnlsShapes[shape], rows < cols}
	})
}

// Lawson-Hanson reaches the fit that trying every subset finds: the same
// sum of squares, the held prices as given, no negative price.
func TestNonNegLeastSquaresMatchesEverySubset(t *testing.T) {
	p := gopter.DefaultTestParametersWithSeed(testseed.Get(t, 20261202))
	p.MinSuccessfulTests = 500
	props := gopter.NewProperties(p)
	kinds := map[string]int{}
	props.Property("same optimum as every subset", prop.ForAll(func(c nnlsCase) bool {
		want, wantErr := everySubset(c.x, c.fixed)
		got := NonNegLeastSquares(c.x, c.fixed)
		kinds[c.shape]++
		if c.narrow {
			kinds["fewer rows than columns"]++
		}
		switch {
		case got == nil:
			// nil only when every free price is 0 and none is held
			kinds["nil"]++
			if len(c.fixed) > 0 {
				return false
			}
			for _, v := range want {
				if v > 1e-9 {
					return false
				}
			}
			return true
		}
		for j, v := range c.fixed {
			if got[j] != v {
				return false
			}
		}
		for _, v := range got {
			if v < 0 {
				return false
			}
		}
		gotErr := sumSquares(c.x, got)
		if len(c.fixed) > 0 {
			kinds["held"]++
		}
		if gotErr < wantErr-1e-9 {
			kinds["better"]++ // a subset the reference could not solve
		}
		return gotErr <= wantErr*(1+1e-7)+1e-12
	}, genNNLSCase()))
	props.TestingRun(t)
	// every kind of case the generator means to make was made
	for _, k := range append([]string{"held", "nil", "fewer rows than columns"}, nnlsShapes...) {
		if kinds[k] == 0 {
			t.Errorf("no %s case generated: %v", k, kinds)
		}
	}
	t.Logf("cases: %v", kinds)
}
