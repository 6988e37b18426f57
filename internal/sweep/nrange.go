package sweep

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// MaxN is the largest size a sweep accepts (seed 001's addresses must fit
// in one /8; every scenario's inputs are built in memory).
const MaxN = 10_000_000

// PointsPerDecade is the density of a range's points when --points is not
// given.
const PointsPerDecade = 4

// ParseNs turns the --n value into the sizes of a sweep, ascending and
// distinct. It accepts
//
//	A..B     log-spaced from A to B: points sizes when points > 0, else
//	         PointsPerDecade per decade plus the end; each inner size is
//	         rounded to two significant digits (100, 180, 320, 560, 1000,
//	         ...), A and B kept as given
//	A,B,C    exactly these sizes
//	A        one size
//
// where a size is a positive integer, optionally written 10k, 1M or 1e5.
// points > 0 with a list is an error (it applies to ranges).
func ParseNs(spec string, points int) ([]int, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return nil, fmt.Errorf("--n: empty (want a range such as 100..100000, or a list such as 100,1000,10000)")
	}
	if points < 0 {
		return nil, fmt.Errorf("--points %d: must be 0 (the default: %d per decade) or more", points, PointsPerDecade)
	}
	if lo, hi, ok := strings.Cut(s, ".."); ok {
		a, err := parseSize(lo)
		if err != nil {
			return nil, fmt.Errorf("--n %q: lower end: %w", spec, err)
		}
		b, err := parseSize(hi)
		if err != nil {
			return nil, fmt.Errorf("--n %q: upper end: %w", spec, err)
		}
		if b <= a {
			return nil, fmt.Errorf("--n %q: the upper end %d must be above the lower end %d", spec, b, a)
		}
		if points == 1 {
			return nil, fmt.Errorf("--points 1: a range needs at least 2 points (or give one size: --n %d)", b)
		}
		return logSpaced(a, b, points), nil
	}
	if points > 0 {
		return nil, fmt.Errorf("--points %d: applies to a range A..B, not to the list %q", points, spec)
	}
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		n, err := parseSize(f)
		if err != nil {
			return nil, fmt.Errorf("--n %q: %w", spec, err)
		}
		if seen[n] {
			return nil, fmt.Errorf("--n %q: %d given twice", spec, n)
		}
		seen[n] = true
		out = append(out, n)
	}
	sort.Ints(out)
	return out, nil
}

// parseSize parses one size: 1000, 10k, 1M, 1e5.
func parseSize(f string) (int, error) {
	t := strings.TrimSpace(f)
	if t == "" {
		return 0, fmt.Errorf("empty size")
	}
	mult := 1.0
	switch t[len(t)-1] {
	case 'k', 'K':
		mult, t = 1e3, t[:len(t)-1]
	case 'm', 'M':
		mult, t = 1e6, t[:len(t)-1]
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("size %q is not a number (want a positive integer such as 1000, 10k or 1e5)", f)
	}
	v *= mult
	if v != math.Trunc(v) {
		return 0, fmt.Errorf("size %q is not a whole number", f)
	}
	if v < 1 {
		return 0, fmt.Errorf("size %q must be at least 1", f)
	}
	if v > MaxN {
		return 0, fmt.Errorf("size %q is above the largest size a sweep takes (%d)", f, MaxN)
	}
	return int(v), nil
}

// logSpaced returns sizes from a to b (a < b) evenly spaced in log(N).
func logSpaced(a, b, points int) []int {
	la, lb := math.Log10(float64(a)), math.Log10(float64(b))
	if points == 0 {
		points = int(math.Round(PointsPerDecade*(lb-la))) + 1
		points = max(points, 2)
	}
	out := []int{a}
	for i := 1; i < points-1; i++ {
		n := round2(math.Pow(10, la+(lb-la)*float64(i)/float64(points-1)))
		if n > out[len(out)-1] && n < b {
			out = append(out, n)
		}
	}
	return append(out, b)
}

// round2 rounds x to two significant digits (at least 1).
func round2(x float64) int {
	if x < 10 {
		return max(1, int(math.Round(x)))
	}
	e := math.Pow(10, math.Floor(math.Log10(x))-1)
	return int(math.Round(x/e) * e)
}
