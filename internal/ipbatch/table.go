package ipbatch

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// WriteTable prints the reports side by side, one line each.
func WriteTable(w io.Writer, reports []Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tthreads\tkernel median (min..max)\tip start median\tmodel predicted\terror\tmodel wall median (min..max)\tmodel faster by")
	for _, r := range reports {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%+.0f%%\t%s\t%s\n", r.Name, r.Threads, span(r.Kernel), dur(r.ProcessStart.MedianNs),
			dur(r.ModelVirtualNs), r.ErrorPct, span(r.ModelWall), fasterBy(r.FasterBy))
	}
	return tw.Flush()
}

func span(s Stats) string {
	return fmt.Sprintf("%s (%s..%s)", dur(s.MedianNs), dur(s.MinNs), dur(s.MaxNs))
}

// dur rounds to 3 significant digits or so: the machine moves more.
func dur(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.0fµs", float64(d)/1e3)
	}
}

func fasterBy(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0fx", x)
	}
	return fmt.Sprintf("%.1fx", x)
}
