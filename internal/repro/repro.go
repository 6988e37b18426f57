// Package repro puts each seed's published figures beside the model's
// prediction: `rtnlsim repro SEED`. A seed is one of the mailing-list
// threads rtnlsim was built from, cited by Source.
//
// # The registry (how a seed hooks in)
//
// Every seed is one package, internal/repro/seedNNN, holding its scenario,
// its model runs, its kernel measurement and its table, and registers
// itself from an init function:
//
//	func init() {
//		repro.Register(repro.Seed{
//			ID:      "004",
//			Source:  repro.Source{List: "netdev", Date: "2018-09-01", Subject: "...", Author: "..."},
//			Title:   "rtnetlink: add IFA_IF_NETNSID for RTM_GETADDR (2018)",
//			Summary: "getifaddrs of another namespace by netnsid vs setns: 81 vs 162 us",
//			Rows:    seed004Rows,
//		})
//	}
//
// Package internal/repro/seeds imports every seed package, so that a
// program importing it has them all registered: a new seed is its folder
// plus one import line there.
//
// Rows builds the seed's Table: one Row per published figure, each with
// the exact words that publish it (Figure.Quote, which the tests check
// against the number and, given the thread texts, against the thread), the
// model's Cell under the seed-era profile (the parameters fitted to that
// seed's figures; Role says whether the row was fitted or predicted, or
// why the model has no number: never a made-up one), and, when
// Options.Kernel is set, a Kernel cell measured on this machine at a size
// it can afford, with the model's prediction for that size under
// Options.Machine (this machine's calibrated prices) or, without one, the
// seed-era prices (Kernel.Profile says which). The command, the formats
// and the tests walk the registry.
//
// Optional parts of a Seed: Sizes lists the kernel sizes --size can
// override (shown in the help); a seed whose model takes long may honour
// Options.FiguresOnly (the tests then check its citations cheaply).
// Helpers for the Kernel cells: MeasureKernel runs one kmeasure.Scenario
// on this kernel (kmeasure.RunScenarioMin) and on the sim (calib.SimWork)
// and fills the cell; qualitative rows set Agrees from the model's
// outcome.
//
// Formats: Text (a readable table, text/tabwriter), JSON (the Table as
// is) and CSV (one line per row, with a header).
package repro

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/rtnlsim/rtnlsim/cost"
)

// Seed is one registered seed.
type Seed struct {
	// ID is the seed's number, the name of its package: "000".
	ID string
	// Source cites the mailing-list thread the figures come from.
	Source Source
	// Title is the thread's subject.
	Title string
	// Summary is one line for the command's help.
	Summary string
	// Rows builds the seed's table.
	Rows func(ctx context.Context, o Options) (*Table, error)
	// Sizes are the kernel sizes Options.KernelSizes can override (for
	// the help text and --size); optional.
	Sizes []Size
	// Layouts says the seed prints a layout search table when
	// Options.Layouts is set (--layouts); optional.
	Layouts bool
}

// Size is one kernel size a seed measures at with --kernel.
type Size struct {
	Key     string // "000/one-by-one"
	Default int
	What    string // what the number counts
}

// SizeOf is the default of key in sizes; it panics on an unknown key (a
// programming error in a seed file).
func SizeOf(sizes []Size, key string) int {
	for _, s := range sizes {
		if s.Key == key {
			return s.Default
		}
	}
	panic("repro: unknown size key " + key)
}

// Options are what a seed's Rows may use.
type Options struct {
	// Kernel adds the Kernel cells: measurements on this machine (root
	// needed; every measurement runs in a network namespace of its own).
	Kernel bool
	// KernelSizes overrides the sizes measured, by scenario key (each
	// seed documents its keys); nil or a missing key takes the seed's
	// defaults. Tests use it for cheap sizes.
	KernelSizes map[string]int
	// KernelRuns is how many times each kernel scenario runs (the minimum
	// is kept); 0 means 3.
	KernelRuns int
	// Machine is this machine's calibrated prices (a profile file from
	// `rtnlsim calibrate`), for the model's prediction beside each
	// kernel measurement; nil: the seed-era prices.
	Machine *cost.Params
	// MachineName names Machine (the profile file).
	MachineName string
	// Progress receives one line per long step (nil: discard).
	Progress io.Writer
	// FiguresOnly allows a seed whose model takes long (seed 003: about
	// 30 s) to return its rows with the published figures and without
	// running the model: such model cells are NotModelled with the text
	// SkippedText. Tests use it to check the citations cheaply; a seed may
	// ignore it.
	FiguresOnly bool
	// Layouts adds the seed's layout search table (Table.Sections) to a
	// seed that has one (Seed.Layouts).
	Layouts bool
	// LayoutsPlot, when set, is where such a seed draws its layout search
	// (.svg, .png or .pdf).
	LayoutsPlot string
}

// SkippedText is the model cell of a row whose model was not run
// (Options.FiguresOnly).
const SkippedText = "model not run (figures only)"

// Runs is KernelRuns with its default.
func (o Options) Runs() int {
	if o.KernelRuns < 1 {
		return 3
	}
	return o.KernelRuns
}

// Size is the kernel size for key: KernelSizes[key] if set, else def.
func (o Options) Size(key string, def int) int {
	if n, ok := o.KernelSizes[key]; ok && n > 0 {
		return n
	}
	return def
}

// Progressf writes one progress line.
func (o Options) Progressf(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}

// KernelPrices returns the prices for the model's kernel column and their
// name: Machine when given, else the seed-era prices eraName.
func (o Options) KernelPrices(era cost.Params, eraName string) (cost.Params, string) {
	if o.Machine != nil {
		name := o.MachineName
		if name == "" {
			name = "calibrated profile"
		}
		return *o.Machine, name
	}
	return era, eraName + " (no --profile: seed-era prices)"
}

// Role says how the model's cell was made.
type Role string

const (
	Fitted       Role = "fitted"       // the figure was used to fit the prices
	Predicted    Role = "predicted"    // not used in any fit
	Extrapolated Role = "extrapolated" // predicted from a part of the scenario
	NotModelled  Role = "not modelled" // no number: Cell.Text says why
	Qualitative  Role = "qualitative"  // an outcome, not a number
)

// Source is a public mailing-list thread: where a seed's figures were
// published.
type Source struct {
	List    string `json:"list"`
	Date    string `json:"date"` // of the first message cited, YYYY-MM-DD
	Subject string `json:"subject"`
	Author  string `json:"author"`
}

func (s Source) String() string {
	return fmt.Sprintf("%s, %s, %q, %s", s.List, s.Date, s.Subject, s.Author)
}

// Figure is a published value and the words that publish it.
type Figure struct {
	// Quote is the text of the thread the value comes from, verbatim
	// (without the leading "> " of quoted replies).
	Quote string `json:"quote"`
	// Value is in the row's Unit; NaN for qualitative figures.
	Value float64 `json:"value"`
	// Shown is a short form of a qualitative figure for the table (the
	// quote when empty).
	Shown string `json:"shown,omitempty"`
}

// Cell is the model's value, or its outcome, or why there is none.
type Cell struct {
	Value *float64 `json:"value,omitempty"`
	Text  string   `json:"text,omitempty"`
}

// Num is a numeric cell.
func Num(v float64) Cell { return Cell{Value: &v} }

// Kernel is a measurement on this machine beside the model's prediction
// for the same scenario and size.
type Kernel struct {
	// Size names what was measured: "N=300 devices, 1 thread".
	Size string `json:"size"`
	// Measured is the kernel's time in the row's Unit (minimum of Runs),
	// nil when there is none (Text says why).
	Measured *float64 `json:"measured,omitempty"`
	Runs     int      `json:"runs,omitempty"`
	// Model is the model's prediction for Size under Profile.
	Model    *float64 `json:"model,omitempty"`
	Profile  string   `json:"profile,omitempty"`
	ErrorPct *float64 `json:"error_pct,omitempty"`
	Text     string   `json:"text,omitempty"`
}

// Row is one published figure beside the model.
type Row struct {
	// Group is the table section (the figure's experiment).
	Group    string   `json:"group"`
	Scenario string   `json:"scenario"`
	Unit     string   `json:"unit"`
	Seed     Figure   `json:"seed"`
	Model    Cell     `json:"model"`
	Role     Role     `json:"role"`
	ErrorPct *float64 `json:"error_pct,omitempty"`
	// Agrees is, for a qualitative row, whether the model's outcome is
	// the seed's (computed from the outcome, not asserted).
	Agrees *bool   `json:"agrees,omitempty"`
	Kernel *Kernel `json:"kernel,omitempty"`
	Note   string  `json:"note,omitempty"`
}

// Table is one seed's output.
type Table struct {
	Seed   string `json:"seed"`
	Source Source `json:"source"`
	Title  string `json:"title"`
	// Profile describes the seed-era profile: which prices, fitted to what.
	Profile string   `json:"profile"`
	Rows    []Row    `json:"rows"`
	Notes   []string `json:"notes,omitempty"`
	// Sections are extra tables (seed 001's layout search), printed after
	// the notes; not in the CSV, which is one line per row.
	Sections []Section `json:"sections,omitempty"`
}

// Section is an extra table of cells already formatted.
type Section struct {
	Title  string     `json:"title"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
}

// ErrPct is (model - seed) / seed in percent, nil when either is missing.
func ErrPct(model *float64, seed float64) *float64 {
	if model == nil || math.IsNaN(seed) || seed == 0 {
		return nil
	}
	e := 100 * (*model - seed) / seed
	return &e
}

// SetError fills r.ErrorPct from its cells.
func (r *Row) SetError() { r.ErrorPct = ErrPct(r.Model.Value, r.Seed.Value) }

// SetError fills k.ErrorPct from its cells.
func (k *Kernel) SetError() {
	if k.Measured != nil {
		k.ErrorPct = ErrPct(k.Model, *k.Measured)
	}
}

var (
	mu       sync.Mutex
	registry = map[string]Seed{}
)

// Register adds a seed; it panics on a duplicate or incomplete one (a
// programming error in an init function).
func Register(s Seed) {
	mu.Lock()
	defer mu.Unlock()
	if s.ID == "" || s.Rows == nil || s.Source.Subject == "" || s.Title == "" {
		panic(fmt.Sprintf("repro: incomplete seed %+v", s))
	}
	if _, dup := registry[s.ID]; dup {
		panic("repro: seed " + s.ID + " registered twice")
	}
	registry[s.ID] = s
}

// Seeds lists the registered seeds by ID.
func Seeds() []Seed {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Seed, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// IDs lists the registered seed IDs.
func IDs() []string {
	var ids []string
	for _, s := range Seeds() {
		ids = append(ids, s.ID)
	}
	return ids
}

// Lookup finds a seed by ID ("1", "01" and "001" all name seed 001). An
// unknown one is an error that lists the known seeds.
func Lookup(id string) (Seed, error) {
	id = strings.TrimSpace(id)
	if len(id) > 0 && len(id) < 3 && strings.Trim(id, "0123456789") == "" {
		id = strings.Repeat("0", 3-len(id)) + id
	}
	mu.Lock()
	s, ok := registry[id]
	mu.Unlock()
	if !ok {
		var known []string
		for _, s := range Seeds() {
			known = append(known, s.ID+" ("+s.Summary+")")
		}
		return Seed{}, fmt.Errorf("unknown seed %q; known seeds: %s", id, strings.Join(known, "; "))
	}
	return s, nil
}

// Run builds seed id's table.
func Run(ctx context.Context, id string, o Options) (*Table, error) {
	s, err := Lookup(id)
	if err != nil {
		return nil, err
	}
	t, err := s.Rows(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("seed %s: %w", s.ID, err)
	}
	t.Seed, t.Source, t.Title = s.ID, s.Source, s.Title
	return t, nil
}

// Agrees is a qualitative row's outcome as a cell value.
func Agrees(b bool) *bool { return &b }
