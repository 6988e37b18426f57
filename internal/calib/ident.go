package calib

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlsim/rtnlsim/cost"
)

// MinDistance is how far a step's column must lie from the span of the
// other columns (the sine of the angle between them, columns scaled to
// unit norm) for the fit to report its price. Below it, a price is "not
// identified": the data can trade it against the others, and a few
// percent of noise in the times moves it by a large factor (a column at
// distance d takes noise about 1/d times larger than one orthogonal to
// the rest).
const MinDistance = 0.05

// rankTol is the relative size under which a singular value counts as 0
// for the rank (exact dependence, up to rounding).
const rankTol = 1e-9

// Identifiability describes a design matrix: rows are calibration
// scenarios, columns are steps; entry (i, s) is row i's count of s
// divided by its measured time (the fit weighs relative error), each
// column then scaled to unit norm so that the figures do not depend on
// the units of the prices.
type Identifiability struct {
	Steps []cost.Step
	Rows  int
	// Singular are the singular values, largest first.
	Singular []float64
	// Rank counts the singular values above rankTol of the largest.
	Rank int
	// Condition is the largest singular value over the smallest; +Inf
	// when the columns are dependent (or outnumber the rows).
	Condition float64
	// Distance is, per column, the sine of the angle between it and the
	// span of the other columns: 1 when orthogonal to them all, 0 when a
	// combination of them. From the SVD A = U S Vᵀ:
	// 1/Distance_j² = Σ_i V_ji² / S_i², so a column with weight on the
	// right-singular vectors of small singular values is near the span.
	Distance []float64
}

// Identified reports whether column j's price is pinned by the design.
func (d Identifiability) Identified(j int) bool { return d.Distance[j] >= MinDistance }

// AnalyzeDesign builds the design of rows over steps and analyses it.
func AnalyzeDesign(rows []Row, steps []cost.Step) Identifiability {
	out := Identifiability{Steps: steps, Rows: len(rows), Distance: make([]float64, len(steps))}
	if len(steps) == 0 || len(rows) == 0 {
		return out
	}
	a := designMatrix(rows, steps)
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDFull) {
		out.Condition = math.Inf(1)
		return out
	}
	s := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	out.Singular = s
	for _, x := range s {
		if x > rankTol*s[0] {
			out.Rank++
		}
	}
	n := len(steps)
	out.Condition = math.Inf(1)
	if len(s) == n && s[n-1] > rankTol*s[0] {
		out.Condition = s[0] / s[n-1]
	}
	for j := range steps {
		sum := 0.0
		for i := 0; i < n; i++ {
			w := v.At(j, i)
			if i >= len(s) || s[i] <= rankTol*s[0] {
				if math.Abs(w) > 1e-6 {
					sum = math.Inf(1)
					break
				}
				continue
			}
			sum += w * w / (s[i] * s[i])
		}
		out.Distance[j] = 1 / math.Sqrt(sum)
	}
	return out
}

// entangled names the steps other than j that carry weight (over 0.1) in
// the right-singular vector of the smallest singular value on which j
// carries the most weight: the steps j's column is nearly a combination
// of.
func (d Identifiability) entangled(rows []Row, j int) []cost.Step {
	a := designMatrix(rows, d.Steps)
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDFull) {
		return nil
	}
	var v mat.Dense
	svd.VTo(&v)
	s := svd.Values(nil)
	n := len(d.Steps)
	// The vector to use: the smallest singular value (0 beyond len(s))
	// whose vector has a noticeable weight on j.
	best := -1
	for i := n - 1; i >= 0; i-- {
		if math.Abs(v.At(j, i)) > 0.1 {
			best = i
			break
		}
	}
	if best < 0 || (best < len(s) && s[best] > s[0]*0.5) {
		return nil
	}
	var out []cost.Step
	for k, st := range d.Steps {
		if k != j && math.Abs(v.At(k, best)) > 0.1 {
			out = append(out, st)
		}
	}
	return out
}

// designMatrix is rows x steps: counts per measured ns, columns scaled to
// unit norm (a column of zeros stays zero).
func designMatrix(rows []Row, steps []cost.Step) *mat.Dense {
	a := mat.NewDense(len(rows), len(steps), nil)
	for c, st := range steps {
		norm := 0.0
		for i, r := range rows {
			x := float64(r.Counts[st]) / float64(r.Ns)
			a.Set(i, c, x)
			norm += x * x
		}
		if norm == 0 {
			continue
		}
		norm = math.Sqrt(norm)
		for i := range rows {
			a.Set(i, c, a.At(i, c)/norm)
		}
	}
	return a
}
