package repro

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Formats are the output formats Write knows.
var Formats = []string{"table", "json", "csv"}

// Write prints t in format ("table", "json" or "csv").
func Write(w io.Writer, t *Table, format string) error {
	switch format {
	case "table", "":
		return WriteText(w, t)
	case "json":
		return WriteJSON(w, t)
	case "csv":
		return WriteCSV(w, t)
	}
	return fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(Formats, ", "))
}

// WriteJSON prints t as one indented JSON object (NaN seed values, those
// of qualitative figures, become null).
func WriteJSON(w io.Writer, t *Table) error {
	type figure struct {
		Quote string   `json:"quote"`
		Value *float64 `json:"value"`
		Shown string   `json:"shown,omitempty"`
	}
	type row struct {
		Row
		Seed figure `json:"seed"`
	}
	out := struct {
		*Table
		Rows []row `json:"rows"`
	}{Table: t}
	for _, r := range t.Rows {
		f := figure{Quote: r.Seed.Quote, Shown: r.Seed.Shown}
		if !math.IsNaN(r.Seed.Value) {
			v := r.Seed.Value
			f.Value = &v
		}
		out.Rows = append(out.Rows, row{Row: r, Seed: f})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// CSVHeader is the first line of WriteCSV.
var CSVHeader = []string{"seed", "group", "scenario", "unit", "seed_value", "seed_quote",
	"model_value", "model_text", "role", "error_pct", "agrees", "kernel_size", "kernel_measured", "kernel_runs",
	"kernel_model", "kernel_profile", "kernel_error_pct", "kernel_text", "note"}

// WriteCSV prints one line per row after CSVHeader; numbers are plain
// (no unit, full precision), empty when absent.
func WriteCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	num := func(p *float64) string {
		if p == nil || math.IsNaN(*p) {
			return ""
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	for _, r := range t.Rows {
		sv := r.Seed.Value
		rec := []string{t.Seed, r.Group, r.Scenario, r.Unit, num(&sv), r.Seed.Quote,
			num(r.Model.Value), r.Model.Text, string(r.Role), num(r.ErrorPct), ""}
		if r.Agrees != nil {
			rec[len(rec)-1] = strconv.FormatBool(*r.Agrees)
		}
		if k := r.Kernel; k != nil {
			runs := ""
			if k.Runs > 0 {
				runs = strconv.Itoa(k.Runs)
			}
			rec = append(rec, k.Size, num(k.Measured), runs, num(k.Model), k.Profile, num(k.ErrorPct), k.Text)
		} else {
			rec = append(rec, "", "", "", "", "", "", "")
		}
		rec = append(rec, r.Note)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// FormatValue prints v in unit with a precision that suits its size.
func FormatValue(v float64, unit string) string {
	if math.IsNaN(v) {
		return ""
	}
	a := math.Abs(v)
	var s string
	switch {
	case unit != "s" && unit != "ns" && v == math.Trunc(v):
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case unit == "ns":
		s = strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1e5:
		s = strconv.FormatFloat(v, 'e', 2, 64)
	case a >= 100:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	case a >= 0.01:
		s = strconv.FormatFloat(v, 'f', 3, 64)
	default:
		s = strconv.FormatFloat(v, 'g', 3, 64)
	}
	if unit != "" {
		s += " " + unit
	}
	return s
}

func formatPct(p *float64) string {
	if p == nil {
		return ""
	}
	if math.Abs(*p) >= 1e4 {
		return fmt.Sprintf("%+.2g%%", *p)
	}
	return fmt.Sprintf("%+.1f%%", *p)
}

// WriteText prints t as a readable table: a heading, the seed-era profile,
// one block per group, the notes as numbered footnotes.
func WriteText(w io.Writer, t *Table) error {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %s: %s\n", t.Seed, t.Title)
	fmt.Fprintf(&b, "source: %s\n", t.Source)
	if t.Profile != "" {
		fmt.Fprintf(&b, "seed-era profile: %s\n", t.Profile)
	}
	kernel := false
	for _, r := range t.Rows {
		kernel = kernel || r.Kernel != nil
	}
	var foot []string
	footnote := func(s string) string {
		if s == "" {
			return ""
		}
		for i, f := range foot {
			if f == s {
				return fmt.Sprintf("[%d]", i+1)
			}
		}
		foot = append(foot, s)
		return fmt.Sprintf("[%d]", len(foot))
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	head := "scenario\tseed\tmodel\terror\trow"
	if kernel {
		head += "\tkernel size\tkernel\tmodel there\terror"
	}
	group := "\x00"
	for _, r := range t.Rows {
		if r.Group != group {
			group = r.Group
			fmt.Fprintf(tw, "\n%s\n", group)
			fmt.Fprintln(tw, head+"\tnote")
		}
		seed := r.Seed.Quote
		if r.Seed.Shown != "" {
			seed = r.Seed.Shown
		}
		if !math.IsNaN(r.Seed.Value) {
			seed = FormatValue(r.Seed.Value, r.Unit)
		}
		model := r.Model.Text
		if r.Model.Value != nil {
			model = FormatValue(*r.Model.Value, r.Unit)
			if r.Model.Text != "" {
				model += " (" + r.Model.Text + ")"
			}
		} else if r.Role == NotModelled {
			model = "not modelled " + footnote(r.Model.Text)
		}
		errCell := formatPct(r.ErrorPct)
		if r.Agrees != nil {
			errCell = "agrees"
			if !*r.Agrees {
				errCell = "DIFFERS"
			}
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s", r.Scenario, seed, model, errCell, r.Role)
		if kernel {
			if k := r.Kernel; k != nil {
				meas, mod := "", ""
				if k.Measured != nil {
					meas = FormatValue(*k.Measured, r.Unit)
				}
				if k.Model != nil {
					mod = FormatValue(*k.Model, r.Unit)
				}
				if k.Text != "" {
					meas = strings.TrimSpace(meas + " " + footnote(k.Text))
				}
				line += fmt.Sprintf("\t%s\t%s\t%s\t%s", k.Size, meas, mod, formatPct(k.ErrorPct))
			} else {
				line += "\t\t\t\t"
			}
		}
		line += "\t" + footnote(r.Note)
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if kernel {
		profiles := map[string]bool{}
		for _, r := range t.Rows {
			if r.Kernel != nil && r.Kernel.Profile != "" && !profiles[r.Kernel.Profile] {
				profiles[r.Kernel.Profile] = true
				fmt.Fprintf(&b, "\nkernel column: this machine, minimum of the runs; \"model there\" priced with %s\n", r.Kernel.Profile)
			}
		}
	}
	if len(foot) > 0 {
		b.WriteString("\n")
		for i, f := range foot {
			fmt.Fprintf(&b, "[%d] %s\n", i+1, f)
		}
	}
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	for _, sec := range t.Sections {
		fmt.Fprintf(&b, "\n%s\n", sec.Title)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, r := range append([][]string{sec.Header}, sec.Rows...) {
			fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
