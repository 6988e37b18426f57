package calib

import "gonum.org/v1/gonum/mat"

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
	p := make([]float64, k)
	for j, v := range fixed {
		p[j] = v
	}
	if len(free) == 0 {
		return p
	}
	// a: the free columns; y: what the held prices leave to explain.
	a := mat.NewDense(len(x), len(free), nil)
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

// lawsonHanson is min |a·s - y| over s >= 0 (n columns of a). The columns
// are scaled to unit norm first, as the calibration's counts per ns span
// seven orders of magnitude: a column enters while its scaled gradient
// exceeds a tolerance relative to the residual, whatever the units.
func lawsonHanson(a *mat.Dense, y *mat.VecDense, n int) []float64 {
	rows := y.Len()
	norm := make([]float64, n)
	u := mat.NewDense(rows, n, nil)
	for j := range n {
		norm[j] = mat.Norm(a.ColView(j), 2)
		if norm[j] > 0 {
			for i := range rows {
				u.Set(i, j, a.At(i, j)/norm[j])
			}
		}
	}
	s := make([]float64, n)
	passive := make([]bool, n)
	// blocked: a column whose entry gave it no positive price (rounding
	// with near-collinear columns); it waits until the passive set
	// changes, so the same column is not picked again and again.
	blocked := make([]bool, n)
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
				sub.Set(i, c, u.At(i, j))
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
	for iter := 0; iter < 10*n+50; iter++ {
		var r, w mat.VecDense
		r.MulVec(u, mat.NewVecDense(n, append([]float64(nil), s...)))
		r.SubVec(y, &r)
		w.MulVec(u.T(), &r)
		enter, best := -1, 1e-10*mat.Norm(&r, 2)
		for j := range n {
			if !passive[j] && !blocked[j] && norm[j] > 0 && w.AtVec(j) > best {
				enter, best = j, w.AtVec(j)
			}
		}
		if enter < 0 {
			break
		}
		passive[enter] = true
		z, ok := solve()
		if !ok || z[enter] <= 0 {
			passive[enter], blocked[enter] = false, true
			continue
		}
		clear(blocked)
		for range n + 1 {
			feasible := true
			alpha, hit := 1.0, -1
			for j := range n {
				if passive[j] && z[j] <= 0 {
					feasible = false
					// s[j] > 0 here: only the entering column starts at
					// 0, and its price is positive
					if t := s[j] / (s[j] - z[j]); t < alpha {
						alpha, hit = t, j
					}
				}
			}
			if feasible {
				copy(s, z)
				break
			}
			// step from s towards z until the first passive price reaches
			// 0; it, and any other that reaches 0 with it, leave
			for j := range n {
				if passive[j] {
					s[j] += alpha * (z[j] - s[j])
					if j == hit || s[j] <= 0 {
						passive[j], s[j] = false, 0
					}
				}
			}
			if z, ok = solve(); !ok {
				break
			}
		}
	}
	for j := range n {
		if norm[j] > 0 {
			s[j] /= norm[j]
		}
	}
	return s
}
