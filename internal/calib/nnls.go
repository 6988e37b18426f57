package calib

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// NonNegLeastSquares solves x·p ≈ 1 (one row per measurement, each scaled
// by its time) with the parameters in fixed held and the others
// non-negative; nil when the only such fit prices every free parameter at
// 0 and nothing is held. Package calib fits every step's price with it.
//
// It is Lawson and Hanson's active-set method: a parameter enters the
// passive set while the residual still pulls it upwards, the passive ones
// are solved by unconstrained least squares, and one that would turn
// negative is stepped back to 0 and leaves. The problem is convex, so this
// finds the same optimum as trying every subset of parameters, in a
// handful of solves instead of 2^k (twenty prices took minutes that way).
func NonNegLeastSquares(x [][]float64, fixed map[int]float64) []float64 {
	k := len(x[0])
	var free []int
	for j := 0; j < k; j++ {
		if _, ok := fixed[j]; !ok {
			free = append(free, j)
		}
	}
	// a: the free columns; y: what the held prices leave to explain.
	a := mat.NewDense(len(x), max(len(free), 1), nil)
	y := mat.NewVecDense(len(x), nil)
	for i := range x {
		rest := 1.0
		for j, v := range fixed {
			rest -= x[i][j] * v
		}
		y.SetVec(i, rest)
		for c, j := range free {
			a.Set(i, c, x[i][j])
		}
	}
	p := make([]float64, k)
	for j, v := range fixed {
		p[j] = v
	}
	if len(free) == 0 {
		return p
	}
	sol := lawsonHanson(a, y, len(free))
	priced := len(fixed) > 0
	for c, j := range free {
		p[j] = sol[c]
		priced = priced || sol[c] > 0
	}
	if !priced {
		return nil
	}
	return p
}

// lawsonHanson is min |a·s - y| over s >= 0 (n columns of a).
func lawsonHanson(a *mat.Dense, y *mat.VecDense, n int) []float64 {
	rows := y.Len()
	s := make([]float64, n)
	passive := make([]bool, n)
	// dependent: columns that were a combination of the passive ones when
	// they entered; they cannot lower the residual and do not enter again.
	dependent := make([]bool, n)
	// The tolerance scales with the data: a's columns and y need not be
	// of unit size.
	tol := 1e-12 * (mat.Norm(a, 1) + 1) * (mat.Norm(y, 1) + 1)
	gradient := func() []float64 {
		var r, w mat.VecDense
		r.MulVec(a, mat.NewVecDense(n, append([]float64(nil), s...)))
		r.SubVec(y, &r)
		w.MulVec(a.T(), &r)
		return w.RawVector().Data
	}
	// solve is the unconstrained least squares on the passive columns,
	// zero elsewhere, or false when those columns are rank deficient.
	solve := func() ([]float64, bool) {
		var cols []int
		for j := range n {
			if passive[j] {
				cols = append(cols, j)
			}
		}
		z := make([]float64, n)
		if len(cols) == 0 || len(cols) > rows {
			return z, len(cols) == 0
		}
		sub := mat.NewDense(rows, len(cols), nil)
		for i := range rows {
			for c, j := range cols {
				sub.Set(i, c, a.At(i, j))
			}
		}
		var v mat.VecDense
		if err := v.SolveVec(sub, y); err != nil {
			return z, false
		}
		for c, j := range cols {
			z[j] = v.AtVec(c)
		}
		return z, true
	}
	for iter := 0; iter < 3*n+10; iter++ {
		w := gradient()
		enter, best := -1, tol
		for j := range n {
			if !passive[j] && !dependent[j] && w[j] > best {
				enter, best = j, w[j]
			}
		}
		if enter < 0 {
			break
		}
		passive[enter] = true
		for {
			z, ok := solve()
			if !ok {
				passive[enter], dependent[enter] = false, true
				break
			}
			feasible := true
			for j := range n {
				if passive[j] && z[j] <= 0 {
					feasible = false
				}
			}
			if feasible {
				copy(s, z)
				break
			}
			// step from s towards z until the first passive price reaches 0
			alpha := math.Inf(1)
			for j := range n {
				if passive[j] && z[j] <= 0 {
					alpha = min(alpha, s[j]/(s[j]-z[j]))
				}
			}
			for j := range n {
				s[j] += alpha * (z[j] - s[j])
				if passive[j] && s[j] <= tol {
					passive[j], s[j] = false, 0
				}
			}
		}
	}
	return s
}
