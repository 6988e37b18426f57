package calib

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// NonNegLeastSquares solves x·p ≈ 1 (one row per measurement, each scaled
// by its time) with the parameters in fixed held, trying every subset of
// the others and keeping the best fit whose parameters are all
// non-negative; nil when there is none. Package calib fits every step's
// price with it.
func NonNegLeastSquares(x [][]float64, fixed map[int]float64) []float64 {
	k := len(x[0])
	var free []int
	for j := 0; j < k; j++ {
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
			if len(cols) > len(x) {
				continue
			}
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
			ok := true
			for c, j := range cols {
				p[j] = sol.AtVec(c)
				ok = ok && p[j] >= 0
			}
			if !ok {
				continue
			}
		} else if len(fixed) == 0 {
			continue
		}
		sq := 0.0
		for i := range x {
			pred := 0.0
			for j := range p {
				pred += x[i][j] * p[j]
			}
			sq += (pred - 1) * (pred - 1)
		}
		if sq < bestErr {
			best, bestErr = p, sq
		}
	}
	return best
}
