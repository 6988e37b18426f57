package sim

// Model-only properties of the +bulk-ifindex list delete on the sim target
// itself. TestPropListDeleteOneBarrier
// (unregister_test.go) holds the same rules over the seed 000 cost tables,
// where a device is an UnregDev and the only dependant is a veth peer;
// these run the model's devices: topologies of ifb, dummy, veth pairs,
// bridges with ports and macvlans on lowers (some UP), then one
// `link del list` whose names repeat, name both ends of a veth, a bridge
// and its ports, a macvlan and its lower.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// bulkCase is one generated case: a topology script and a list delete.
type bulkCase struct {
	topo []string // script lines, some may be refused
	list []string // the names of the list delete
}

// Topology specs: kind*1000 + param.
const (
	specIfb = iota
	specDummy
	specVeth
	specBridge
	specMacvlan
	specPort
	numSpecKinds
)

// buildTopology turns specs into script lines. Devices are n0, n1, ...; a
// veth nK has the peer nKp. A macvlan's lower and a port's bridge are
// chosen by param among the devices made before it, so some lines are
// refused (a macvlan on a bridge port, a bridge port of itself), as they
// would be on the kernel.
func buildTopology(specs []int, ups []bool) []string {
	var lines, devs, bridges, lowers []string
	for i, v := range specs {
		kind, param := v/1000%numSpecKinds, v%1000
		name := fmt.Sprintf("n%d", i)
		switch kind {
		case specIfb:
			lines = append(lines, "link add "+name+" type ifb")
			devs, lowers = append(devs, name), append(lowers, name)
		case specDummy:
			lines = append(lines, "link add "+name+" type dummy")
			devs, lowers = append(devs, name), append(lowers, name)
		case specVeth:
			lines = append(lines, "link add "+name+" type veth peer name "+name+"p")
			devs, lowers = append(devs, name, name+"p"), append(lowers, name, name+"p")
		case specBridge:
			lines = append(lines, "link add "+name+" type bridge")
			devs, bridges = append(devs, name), append(bridges, name)
		case specMacvlan:
			if len(lowers) == 0 {
				continue
			}
			lines = append(lines, fmt.Sprintf("link add %s link %s type macvlan", name, lowers[param%len(lowers)]))
			devs = append(devs, name)
		case specPort:
			if len(bridges) == 0 || len(devs) == 0 {
				continue
			}
			lines = append(lines, fmt.Sprintf("link set %s master %s", devs[param%len(devs)], bridges[(param/7)%len(bridges)]))
		}
	}
	for i, up := range ups {
		if up && i < len(devs) {
			lines = append(lines, "link set "+devs[i]+" up")
		}
	}
	return lines
}

// applyLines applies src's lines to tg, refusals allowed.
func applyLines(tg *Target, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	reqs, err := script.ParseString(strings.Join(lines, "\n") + "\n")
	if err != nil {
		return err
	}
	for _, r := range reqs {
		if err := tg.Apply(context.Background(), r); err != nil && rtnl.Errno(err) == 0 {
			return err
		}
	}
	return nil
}

// formatCase is the case as a script that reproduces it, each line written
// back by script.Format.
func formatCase(c bulkCase) string {
	lines := append(append([]string(nil), c.topo...), "link del list "+strings.Join(c.list, " "))
	reqs, err := script.ParseString(strings.Join(lines, "\n") + "\n")
	if err != nil {
		return strings.Join(lines, "\n") + "\n(does not parse: " + err.Error() + ")\n"
	}
	var b strings.Builder
	for _, r := range reqs {
		b.WriteString(script.Format(r.Op))
		b.WriteByte('\n')
	}
	return b.String()
}

func failCase(c bulkCase, format string, args ...any) string {
	return fmt.Sprintf(format, args...) + "\nscript (replay: rtnlsim run --target sim --profile " + bulk +
		" --show links,cost FILE):\n" + formatCase(c)
}

// newBulkTarget runs the topology on a fresh target of the profile.
func newBulkTarget(profile string, c bulkCase) (*Target, error) {
	tg := New(MustParseProfile(profile).Options(3))
	return tg, applyLines(tg, c.topo)
}

// expectRemoved is what a list delete must unregister, worked out from the
// devices, apart from the model's deletion code: each named device, a
// veth's peer, and the macvlans of every device that goes (their lower's
// NETDEV_UNREGISTER takes them).
func expectRemoved(n *Netns, names []string) map[*Device]bool {
	out := map[*Device]bool{}
	var todo []*Device
	add := func(d *Device) {
		if d != nil && !out[d] {
			out[d] = true
			todo = append(todo, d)
		}
	}
	for _, name := range names {
		add(n.ByName(name))
	}
	for len(todo) > 0 {
		d := todo[0]
		todo = todo[1:]
		add(d.Peer())
		for _, v := range d.vlanList() {
			add(v)
		}
	}
	return out
}

// bulkStats counts what the generated cases covered.
type bulkStats struct {
	cases, dup, vethBoth, bridgeAndPort, macvlanAndLower, up, enodev, lo int
}

func (s *bulkStats) note(n *Netns, list []string) {
	s.cases++
	seen := map[string]bool{}
	for _, name := range list {
		if seen[name] {
			s.dup++
			break
		}
		seen[name] = true
	}
	var vb, bp, ml, up bool
	for name := range seen {
		d := n.ByName(name)
		if d == nil {
			continue
		}
		vb = vb || (d.Peer() != nil && seen[d.Peer().name])
		bp = bp || (d.master != nil && seen[d.master.name])
		ml = ml || (d.lower != nil && seen[d.lower.name])
		up = up || d.Up()
	}
	for _, b := range []struct {
		on bool
		n  *int
	}{{vb, &s.vethBoth}, {bp, &s.bridgeAndPort}, {ml, &s.macvlanAndLower}, {up, &s.up}} {
		if b.on {
			*b.n++
		}
	}
}

// makeList picks the list's names among the devices (all but lo, in dump
// order): picks index them, dup repeats the first, and variant 1 puts an
// unknown name, variant 2 the loopback, at position at (others: neither);
// related adds the devices each named one hangs together with.
// With no device at all the list is the unknown name or lo alone.
func makeList(n *Netns, picks []int, dup, related bool, variant, at int) []string {
	var names []string
	for _, d := range n.Devices() {
		if d != n.Loopback() {
			names = append(names, d.name)
		}
	}
	var list []string
	if len(names) > 0 {
		for _, p := range picks {
			list = append(list, names[p%len(names)])
		}
		if len(list) == 0 {
			list = append(list, names[0])
		}
		if related {
			// Name what each named device hangs together with too:
			// its bridge or ports, its veth peer, its lower or
			// macvlans.
			for _, name := range slices.Clone(list) {
				d := n.ByName(name)
				for _, x := range append(append([]*Device{d.master, d.Peer(), d.lower}, d.portList()...), d.vlanList()...) {
					if x != nil {
						list = append(list, x.name)
					}
				}
			}
		}
		if dup {
			list = append(list, list[0])
		}
	}
	if variant == 1 || variant == 2 || len(list) == 0 {
		extra := "nope"
		if variant == 2 {
			extra = "lo"
		}
		at %= len(list) + 1
		list = slices.Insert(list, at, extra)
	}
	return list
}

// lastWork is the cost work of the last request priced.
func lastWork(tg *Target) cost.Work { return tg.workList()[len(tg.workList())-1] }

func TestPropBulkListDelete(t *testing.T) {
	var stats bulkStats
	props := gopter.NewProperties(seed000PropParams(t))
	props.Property("+bulk-ifindex list delete: each device once, dependants with it, one rcu_barrier; a refusal changes nothing", prop.ForAll(
		func(specs []int, ups []bool, k int, picks []int, dup, related bool, variant, at int) string {
			var c bulkCase
			c.topo = buildTopology(specs, ups)
			tg, err := newBulkTarget(bulk, c)
			if err != nil {
				return failCase(c, "topology: %v", err)
			}
			n := tg.Netns()
			c.list = makeList(n, picks[:min(k, len(picks))], dup, related, variant, at)
			if slices.Contains(c.list, "nope") {
				stats.enodev++
			}
			if slices.Contains(c.list, "lo") {
				stats.lo++
			}
			if !slices.Contains(c.list, "nope") && !slices.Contains(c.list, "lo") {
				stats.note(n, c.list)
			}
			before, err := tg.State(context.Background(), rtnl.Show{Links: true, Addrs: true, Routes: true, FibTrie: true})
			if err != nil {
				return failCase(c, "state: %v", err)
			}
			costBefore, err := tg.Cost(1)
			if err != nil {
				return failCase(c, "cost: %v", err)
			}
			want := expectRemoved(n, c.list)
			devsBefore := n.Devices()

			line := "link del list " + strings.Join(c.list, " ")
			reqs, err := script.ParseString(line + "\n")
			if err != nil {
				return failCase(c, "list line: %v", err)
			}
			applyErr := tg.Apply(context.Background(), reqs[0])
			after, err := tg.State(context.Background(), rtnl.Show{Links: true, Addrs: true, Routes: true, FibTrie: true})
			if err != nil {
				return failCase(c, "state: %v", err)
			}
			costAfter, err := tg.Cost(1)
			if err != nil {
				return failCase(c, "cost: %v", err)
			}
			w := lastWork(tg)
			dBarrier := costAfter.Counters.RCUBarrier - costBefore.Counters.RCUBarrier
			dRun := costAfter.Counters.RCUBarrierExecuted - costBefore.Counters.RCUBarrierExecuted
			if got := costAfter.Counters.Request - costBefore.Counters.Request; got != 1 {
				return failCase(c, "the list was priced as %d requests, want 1", got)
			}

			if slices.Contains(c.list, "nope") || slices.Contains(c.list, "lo") {
				wantErrno := "ENODEV"
				if i, j := slices.Index(c.list, "lo"), slices.Index(c.list, "nope"); j < 0 || (i >= 0 && i < j) {
					// Names are resolved first (the unknown one is
					// ENODEV); lo resolves, and the kernel refuses it.
					wantErrno = "EOPNOTSUPP"
					if j >= 0 {
						wantErrno = "ENODEV"
					}
				}
				if got := rtnl.ErrnoName(rtnl.Errno(applyErr)); got != wantErrno {
					return failCase(c, "errno %q, want %s", got, wantErrno)
				}
				if !equalState(before, after) {
					return failCase(c, "a refused list changed the State:\nbefore %s\nafter  %s", linksJSON(before), linksJSON(after))
				}
				if dBarrier != 0 || w.Count(cost.StepUnregisterDevice) != 0 {
					return failCase(c, "a refused list unregistered %d devices, %d rcu_barrier", w.Count(cost.StepUnregisterDevice), dBarrier)
				}
				// Untouched also for what comes next: the same
				// topology without the refused line allocates and
				// names the same.
				twin, err := newBulkTarget(bulk, c)
				if err != nil {
					return failCase(c, "twin: %v", err)
				}
				next := []string{"link add zz0 type ifb", "link add zz1 type veth", "link add zz2 link zz0 type macvlan"}
				if err := applyLines(tg, next); err != nil {
					return failCase(c, "next: %v", err)
				}
				if err := applyLines(twin, next); err != nil {
					return failCase(c, "twin next: %v", err)
				}
				a, _ := tg.State(context.Background(), rtnl.Show{Links: true})
				b, _ := twin.State(context.Background(), rtnl.Show{Links: true})
				if !equalState(a, b) {
					return failCase(c, "after a refused list, later requests differ from a run without it:\n%s\n%s", linksJSON(a), linksJSON(b))
				}
				return ""
			}

			if applyErr != nil {
				return failCase(c, "refused: %v", applyErr)
			}
			// Exactly the expected devices went, and each was unlisted
			// once: the batch's per-device count equals the devices
			// gone.
			var gone []string
			for _, d := range devsBefore {
				if !n.alive(d) {
					gone = append(gone, d.name)
					if !want[d] {
						return failCase(c, "%s was unregistered but neither named nor a dependant", d.name)
					}
				}
			}
			if len(gone) != len(want) {
				return failCase(c, "unregistered %v, want %d devices", gone, len(want))
			}
			if got := w.Count(cost.StepUnregisterDevice); got != int64(len(gone)) {
				return failCase(c, "%d unregistrations for %d devices: a device was unregistered twice", got, len(gone))
			}
			if len(after.Links) != len(before.Links)-len(gone) {
				return failCase(c, "links %d -> %d with %d unregistered", len(before.Links), len(after.Links), len(gone))
			}
			// Survivors keep no reference to what went: a port of a
			// deleted bridge was released, a peer went with its veth.
			goneSet := map[string]bool{}
			for _, g := range gone {
				goneSet[g] = true
			}
			for _, l := range after.Links {
				if goneSet[l.Master] {
					return failCase(c, "%s still has the deleted master %s", l.Ifname, l.Master)
				}
				if l.LinkPeer != nil && goneSet[*l.LinkPeer] {
					return failCase(c, "%s still links to the deleted %s", l.Ifname, *l.LinkPeer)
				}
			}
			// One request, one batch, one rcu_barrier.
			if w.Count(cost.StepRCUBarrier) != 1 || dBarrier != 1 || dRun != 1 {
				return failCase(c, "rcu_barrier: request %d, calls %d, run %d; want 1", w.Count(cost.StepRCUBarrier), dBarrier, dRun)
			}
			// The same list sent one device at a time (no switch)
			// deletes the same devices, with one barrier per request
			// that deleted something.
			one, err := newBulkTarget("linux-6.18", c)
			if err != nil {
				return failCase(c, "one by one: %v", err)
			}
			oneBefore, _ := one.Cost(1)
			if err := one.Apply(context.Background(), reqs[0]); err != nil {
				return failCase(c, "one by one refused: %v", err)
			}
			oneAfter, _ := one.Cost(1)
			if got := ifnames(one); got != ifnames(tg) {
				return failCase(c, "one by one leaves %s, bulk %s", got, ifnames(tg))
			}
			deleting := int64(0)
			for _, wk := range one.workList()[len(one.workList())-int(oneAfter.Counters.Request-oneBefore.Counters.Request):] {
				if wk.Count(cost.StepUnregisterDevice) > 0 {
					deleting++
				}
			}
			if b := oneAfter.Counters.RCUBarrier - oneBefore.Counters.RCUBarrier; b != deleting || b < 1 {
				return failCase(c, "one by one: %d barriers for %d deleting requests", b, deleting)
			}
			return ""
		},
		gen.SliceOf(gen.IntRange(0, numSpecKinds*1000-1)),
		gen.SliceOf(gen.Bool()),
		gen.IntRange(1, 6), // names picked
		gen.SliceOfN(6, gen.IntRange(0, 999)),
		gen.Bool(),
		gen.Bool(),
		gen.IntRange(0, 7), // 1: an unknown name, 2: lo, else a clean list
		gen.IntRange(0, 99),
	))
	props.TestingRun(t)
	t.Logf("clean lists %d: duplicates %d, both ends of a veth %d, a bridge and its port %d, a macvlan and its lower %d, an UP device %d; lists with an unknown name %d, with lo %d",
		stats.cases, stats.dup, stats.vethBoth, stats.bridgeAndPort, stats.macvlanAndLower, stats.up, stats.enodev, stats.lo)
	if t.Failed() {
		return
	}
	for name, v := range map[string]int{"duplicates": stats.dup, "veth both ends": stats.vethBoth,
		"bridge and port": stats.bridgeAndPort, "macvlan and lower": stats.macvlanAndLower, "unknown name": stats.enodev, "lo": stats.lo} {
		require.Positive(t, v, "the generator never made a list with %s", name)
	}
}

func linksJSON(s rtnl.State) string {
	b, _ := json.Marshal(s.Links)
	return string(b)
}

// equalState compares two States field for field (links in dump order).
func equalState(a, b rtnl.State) bool { return reflect.DeepEqual(a, b) }
