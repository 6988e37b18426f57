package sim

// Named profiles: a kernel base plus behaviour
// switches, written base+switch+switch, e.g. "linux-6.18+bulk-ifindex".
//
//	linux-6.18     (default) the kernel of this machine: the xarray netdev
//	               index (ifindex allocation and ifindex-ordered dumps)
//	linux-6.4      the 256-bucket dev_index_head hash only: ifindexes from
//	               dev_new_index, dumps walk the buckets (cursor = bucket +
//	               chain position)
//	+bulk-ifindex  RTM_DELLINK with many IFLA_IFINDEX (the seed 000 patch):
//	               `link del list` is one request and one unregister batch
//	+ifa-flush     RTM_DELADDR with IFA_F_FLUSH (seed 001): `addr flush`
//	               deletes the IPv4 addresses without promoting
//	               secondaries, as one request for the whole device (the
//	               thread's suggestion); IPv6 ones then go as without it
//	               (dump and delete)
//	linux-4.2-rc3  seed 003's FIB: fib_table_flush pulls every surviving
//	linux-4.2      leaf's suffix (rc3), or not (4.2, the fix). Only the
//	               FIB is of that era: the netdev index, unregister steps
//	               and costs are 6.18's (the 4.x ones were not read), which
//	               Unmodelled says.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/netdevindex"
)

// Profile is a parsed profile name.
type Profile struct {
	// Name is the canonical spelling: the base, then the switches in the
	// order of ProfileSwitches.
	Name string
	// Base is the kernel release the profile describes.
	Base string
	// Index is the netdev index era of the base.
	Index netdevindex.Options
	// Unregister is the unregister batch structure of the base.
	Unregister UnregisterSteps
	// FIB is the fib_trie of the base's era (fibtrie.Linux618, Linux42,
	// Linux42rc3).
	FIB fibtrie.Options
	// BulkIfindex is +bulk-ifindex.
	BulkIfindex bool
	// IfaFlush is +ifa-flush.
	IfaFlush bool
	// Cost prices the steps; nil takes the prices the code uses by
	// default (DefaultPrices).
	// A profile file (LoadProfile) sets it.
	Cost *cost.Params
	// File is the profile file the profile was read from, "" for a name.
	File string
	// Provenance says where a profile file's prices came from; nil for a
	// name.
	Provenance *ProfileProvenance
}

// DefaultProfile is the profile of this machine's kernel.
const DefaultProfile = "linux-6.18"

type profileBase struct {
	name       string
	index      netdevindex.Options
	unregister UnregisterSteps
	fib        func() fibtrie.Options
}

// profileBases are the bases the link model has.
var profileBases = []profileBase{
	{DefaultProfile, netdevindex.Since69(), UnregisterStepsV618(), fibtrie.Linux618},
	// linux-6.4 is netdevindex.Before65: net->dev_by_index came with "net:
	// store netdevs in an xarray" (seed 002), posted to net-next on 21
	// July 2023, after 6.4 was released (25 June 2023), so 6.4 has the hash
	// alone: dev_new_index allocates, rtnl_dump_ifinfo walks
	// dev_index_head. (That patch went to net-next after the 6.5 merge
	// window had closed, so the era named Since65 may really begin at 6.6;
	// 6.4 is hash-only either way. Not checked against a tagged tree.)
	// The unregister steps are 6.18's: NETDEV_PRE_UNINIT predates 6.4 (a
	// devlink fix of February 2023 names it), and dev_deactivate_many's
	// synchronize_net rule is the same approximation as 6.18's. The FIB
	// trie has no 6.4 variant in fibtrie; 6.18's stands in (both have the
	// 4.2 flush fix).
	{"linux-6.4", netdevindex.Before65(), UnregisterStepsV618(), fibtrie.Linux618},
	// Seed 003's kernels, for their FIB only (see the package comment).
	{"linux-4.2-rc3", netdevindex.Since69(), UnregisterStepsV618(), fibtrie.Linux42rc3},
	{"linux-4.2", netdevindex.Since69(), UnregisterStepsV618(), fibtrie.Linux42},
}

// ProfileSwitches are the behaviour switches, in canonical order.
func ProfileSwitches() []string { return []string{"bulk-ifindex", "ifa-flush"} }

// ProfileNames lists the bases and switches ParseProfile knows, for
// messages and help texts.
func ProfileNames() string {
	var bases []string
	for _, b := range profileBases {
		bases = append(bases, b.name)
	}
	return fmt.Sprintf("bases %s (default %s); switches +%s; compose as %s+bulk-ifindex",
		strings.Join(bases, ", "), DefaultProfile, strings.Join(ProfileSwitches(), ", +"), DefaultProfile)
}

// ParseProfile parses base[+switch...]. An empty string, or one that starts
// with "+", takes the default base. Unknown names, repeated switches and
// the fib_trie-only bases are errors that list the known names.
func ParseProfile(s string) (Profile, error) {
	s = strings.TrimSpace(s)
	parts := strings.Split(s, "+")
	baseName := strings.TrimSpace(parts[0])
	if baseName == "" {
		baseName = DefaultProfile
	}
	var p Profile
	found := false
	for _, b := range profileBases {
		if b.name == baseName {
			p = Profile{Base: b.name, Index: b.index, Unregister: b.unregister, FIB: b.fib()}
			found = true
		}
	}
	if !found {
		return Profile{}, fmt.Errorf("profile %q: unknown base %q (known: %s)", s, baseName, ProfileNames())
	}
	seen := map[string]bool{}
	for _, sw := range parts[1:] {
		sw = strings.TrimSpace(sw)
		switch sw {
		case "bulk-ifindex":
			p.BulkIfindex = true
		case "ifa-flush":
			p.IfaFlush = true
		case "":
			return Profile{}, fmt.Errorf("profile %q: empty switch after \"+\" (known: %s)", s, ProfileNames())
		default:
			return Profile{}, fmt.Errorf("profile %q: unknown switch +%s (known: %s)", s, sw, ProfileNames())
		}
		if seen[sw] {
			return Profile{}, fmt.Errorf("profile %q: +%s given twice", s, sw)
		}
		seen[sw] = true
	}
	p.Name = p.Base
	if p.BulkIfindex {
		p.Name += "+bulk-ifindex"
	}
	if p.IfaFlush {
		p.Name += "+ifa-flush"
	}
	return p, nil
}

// MustParseProfile is ParseProfile for names known to be good; it panics
// otherwise.
func MustParseProfile(s string) Profile {
	p, err := ParseProfile(s)
	if err != nil {
		panic(err)
	}
	return p
}

// String is the canonical name.
func (p Profile) String() string { return p.Name }

// Options turns the profile into sim Options with the given seed, with
// the profile's prices (nil: DefaultPrices).
func (p Profile) Options(seed int64) Options {
	steps := p.Unregister
	var cost *cost.Params
	if p.Cost != nil {
		c := *p.Cost
		cost = &c
	}
	return Options{Seed: seed, Index: p.Index, Unregister: &steps, BulkIfindex: p.BulkIfindex,
		IfaFlush: p.IfaFlush, FIB: p.FIB, Cost: cost}
}

// Unmodelled lists, one sentence each, what the profile names that the
// model does not follow.
func (p Profile) Unmodelled() []string {
	var out []string
	if p.Base == "linux-4.2-rc3" || p.Base == "linux-4.2" {
		out = append(out, p.Base+" is modelled in its FIB only: the netdev index, the unregister steps and the costs are linux-6.18's")
	}
	return out
}

// KernelCompatible reports whether the profile describes this machine's
// kernel as the kernel target drives it: linux-6.18 with no switch (the
// kernel has neither the seed 000 list delete nor IFA_F_FLUSH).
func (p Profile) KernelCompatible() error {
	if p.Name == DefaultProfile {
		return nil
	}
	return fmt.Errorf("profile %s: the kernel target is this machine's kernel, which is %s without switches (it has neither IFLA_IFINDEX bulk delete nor IFA_F_FLUSH); use --target sim for %s",
		p.Name, DefaultProfile, p.Name)
}

// ProfileFile is the JSON file `rtnlsim calibrate` writes and LoadProfile
// reads: a profile name, the fitted prices, and where they came from.
type ProfileFile struct {
	// Profile is the profile name (base and switches) the prices go with.
	Profile string `json:"profile"`
	// Cost is the fitted price of every step, in virtual nanoseconds.
	Cost cost.Params `json:"cost"`
	// Provenance records the calibration.
	Provenance ProfileProvenance `json:"provenance"`
}

// ProfileProvenance says how a profile file's prices were obtained.
type ProfileProvenance struct {
	Kernel  string `json:"kernel"`  // uname -r of the measured kernel
	Machine string `json:"machine"` // uname -m, host name, CPUs
	Date    string `json:"date"`    // RFC 3339, when the calibration ended
	Tool    string `json:"tool"`    // what wrote the file
	// Repeat is how many times each kernel scenario ran (the minimum was
	// kept).
	Repeat int `json:"repeat"`
	// Scenarios are the calibration measurements with the fitted times.
	Scenarios []ProvenanceScenario `json:"scenarios"`
	// Undetermined lists the steps no calibration scenario determines: their
	// price in Cost is not measured (kept from the default prices, or 0).
	Undetermined []string `json:"undetermined,omitempty"`
	// Notes are free remarks (e.g. the noise of the machine).
	Notes []string `json:"notes,omitempty"`
	// Client is what sent the timed requests (e.g. ip -b and its
	// version); empty in files from before it was recorded.
	Client string `json:"client,omitempty"`
	// Load is the machine's load average during the calibration.
	Load string `json:"load,omitempty"`
	// ProcessStart is the time of empty batch files per thread count;
	// ProcessStartSubtracted says its median was taken off every time.
	ProcessStart           []ProvenanceProcessStart `json:"process_start,omitempty"`
	ProcessStartSubtracted bool                     `json:"process_start_subtracted,omitempty"`
	// Prices are the exercised steps' prices, how each was found, the
	// column's distance from the span of the others in the design, and
	// (fitted ones) the least and most of the per-round fits.
	Prices []ProvenancePrice `json:"prices,omitempty"`
	// Design is the calibration design's rank and condition.
	Design *ProvenanceDesign `json:"design,omitempty"`
	// Predictions are the scenarios predicted, not fitted.
	Predictions []ProvenancePrediction `json:"predictions,omitempty"`
}

// ProvenanceProcessStart is the time of empty ip -b batches, per thread
// count.
type ProvenanceProcessStart struct {
	Threads  int   `json:"threads"`
	MedianNs int64 `json:"median_ns"`
	MinNs    int64 `json:"min_ns"`
	MaxNs    int64 `json:"max_ns"`
	Runs     int   `json:"runs"`
}

// ProvenancePrice is one step's price as calibrated.
type ProvenancePrice struct {
	Step     string  `json:"step"`
	Ns       float64 `json:"ns"`
	LoNs     float64 `json:"lo_ns,omitempty"`
	HiNs     float64 `json:"hi_ns,omitempty"`
	Status   string  `json:"status"`
	Distance float64 `json:"distance"`
	// FittedDistance is the same among the fitted columns.
	FittedDistance float64 `json:"fitted_distance,omitempty"`
	// Wide says the per-round fits are more than 2x apart.
	Wide bool `json:"wide_interval,omitempty"`
}

// ProvenanceDesign is the calibration design's identifiability: every
// exercised step's column, then the columns fitted. A condition of 0
// stands for infinite (dependent columns).
type ProvenanceDesign struct {
	Scenarios       int     `json:"scenarios"`
	Columns         int     `json:"columns"`
	Rank            int     `json:"rank"`
	Condition       float64 `json:"condition"`
	FittedColumns   int     `json:"fitted_columns"`
	FittedRank      int     `json:"fitted_rank"`
	FittedCondition float64 `json:"fitted_condition"`
	MinDistance     float64 `json:"min_distance"`
}

// ProvenancePrediction is a scenario predicted from the fitted prices,
// with its interval over the per-round fits, beside the kernel's net
// median and range.
type ProvenancePrediction struct {
	Group         string  `json:"group"`
	Name          string  `json:"name"`
	PredictedNs   int64   `json:"predicted_ns"`
	PredictedLoNs int64   `json:"predicted_lo_ns"`
	PredictedHiNs int64   `json:"predicted_hi_ns"`
	MeasuredNs    int64   `json:"measured_ns"`
	MeasuredLoNs  int64   `json:"measured_lo_ns"`
	MeasuredHiNs  int64   `json:"measured_hi_ns"`
	Error         float64 `json:"error"`
	Gap           string  `json:"gap,omitempty"`
}

// ProvenanceScenario is one calibration scenario: its kernel time, the
// time the fitted prices give, and their relative residual.
type ProvenanceScenario struct {
	Name       string  `json:"name"`
	MeasuredNs int64   `json:"measured_ns"`
	FittedNs   int64   `json:"fitted_ns"`
	Residual   float64 `json:"residual"` // (fitted - measured) / measured
	// Client sent the timed requests; RunsNs are the raw times, NetNs
	// the same less the process start (when subtracted).
	Client string  `json:"client,omitempty"`
	RunsNs []int64 `json:"runs_ns,omitempty"`
	NetNs  []int64 `json:"net_ns,omitempty"`
}

// LoadProfile reads a profile: when arg names an existing file, the JSON
// profile file `rtnlsim calibrate` writes (ProfileFile); otherwise a
// profile name for ParseProfile.
func LoadProfile(arg string) (Profile, error) {
	name := strings.TrimSpace(arg)
	if name == "" {
		return ParseProfile(name)
	}
	fi, err := os.Stat(name)
	if file, switches, ok := strings.Cut(name, ".json+"); ok && err != nil {
		// FILE.json+switch: the file's prices under its profile with more
		// switches, e.g. this machine's prices with +ifa-flush.
		return readProfileFileWith(file+".json", "+"+switches)
	}
	if err != nil || fi.IsDir() {
		p, perr := ParseProfile(name)
		if perr != nil && (strings.ContainsAny(name, "/\\") || strings.HasSuffix(name, ".json")) {
			return Profile{}, fmt.Errorf("profile %q: no such profile file, and not a profile name (%s)", name, ProfileNames())
		}
		return p, perr
	}
	return ReadProfileFile(name)
}

// ReadProfileFile reads a ProfileFile.
func ReadProfileFile(path string) (Profile, error) { return readProfileFileWith(path, "") }

// readProfileFileWith reads a ProfileFile and adds switches ("+a+b") to
// its profile name.
func readProfileFileWith(path, switches string) (Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, fmt.Errorf("profile file: %w", err)
	}
	var f ProfileFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Profile{}, fmt.Errorf("profile file %s: %w", path, err)
	}
	if f.Profile == "" {
		return Profile{}, fmt.Errorf("profile file %s: no \"profile\" name", path)
	}
	p, err := ParseProfile(f.Profile + switches)
	if err != nil {
		return Profile{}, fmt.Errorf("profile file %s: %w", path, err)
	}
	if err := f.Cost.Validate(); err != nil {
		return Profile{}, fmt.Errorf("profile file %s: %w", path, err)
	}
	if f.Cost == (cost.Params{}) {
		return Profile{}, fmt.Errorf("profile file %s: every price is 0", path)
	}
	cost, prov := f.Cost, f.Provenance
	p.Cost, p.File, p.Provenance = &cost, path, &prov
	return p, nil
}

// WriteProfileFile writes f as indented JSON to path.
func WriteProfileFile(path string, f ProfileFile) error {
	if _, err := ParseProfile(f.Profile); err != nil {
		return err
	}
	if err := f.Cost.Validate(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("profile file: %w", err)
	}
	return nil
}

// DefaultPrices are the prices of a profile that brings none: rcu_barrier,
// the expedited synchronize_net and the per-device unregister work fitted
// to the published figures of the "rtnetlink: Support fine-grained
// netdevice bulk deletion" thread (netdev, December 2021: 10,000 UP
// devices with IPv6 deleted one by one from one thread in 243 s and by one
// group request in 30 s, on that era's hardware), with an expedited grace
// period at 1/11 of an rcu_barrier. Every other step costs 0. The
// derivation is a test in internal/repro/seed000; `rtnlsim calibrate`
// fits prices of this machine instead.
func DefaultPrices() cost.Params {
	return cost.Params{
		RCUBarrierNs:              16_737_388,
		SynchronizeNetExpeditedNs: 1_521_581,
		UnregisterDeviceNs:        2_997_870,
	}
}

// CostOrDefault is the profile's prices, or DefaultPrices when it has none.
func (p Profile) CostOrDefault() (cost.Params, error) {
	if p.Cost != nil {
		return *p.Cost, nil
	}
	return DefaultPrices(), nil
}
