package props

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/netdevindex"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// dumpCase: n ifb devices, then a link dump read in small chunks; after
// chunk mutAt the script deletes some devices and adds new ones.
type dumpCase struct {
	N     int
	MutAt int
	Dels  []int // indexes into the n devices
	Adds  int
}

func (c dumpCase) script() string {
	var b strings.Builder
	for i := 0; i < c.N; i++ {
		fmt.Fprintf(&b, "link add d%d type ifb\n", i)
	}
	fmt.Fprintf(&b, "# dump: read chunks 1..%d, then\n", c.MutAt)
	for _, name := range c.delNames() {
		fmt.Fprintf(&b, "link del %s\n", name)
	}
	for _, name := range c.addNames() {
		fmt.Fprintf(&b, "link add %s type ifb\n", name)
	}
	b.WriteString("# then read the rest\n")
	return b.String()
}

// delNames and addNames are the devices the case deletes and adds.
func (c dumpCase) delNames() []string {
	var out []string
	for _, d := range c.Dels {
		out = append(out, fmt.Sprintf("d%d", d))
	}
	return out
}

func (c dumpCase) addNames() []string {
	var out []string
	for i := 0; i < c.Adds; i++ {
		out = append(out, fmt.Sprintf("n%d", i))
	}
	return out
}

func genDumpCase() gopter.Gen {
	return gen.IntRange(4, 30).FlatMap(func(v any) gopter.Gen {
		n := v.(int)
		return gopter.CombineGens(
			gen.IntRange(1, 4),
			gen.SliceOf(gen.IntRange(0, n-1)),
			gen.IntRange(0, 4),
		).Map(func(vs []any) dumpCase {
			dels := map[int]bool{}
			var ds []int
			for _, d := range vs[1].([]int) {
				if !dels[d] {
					dels[d] = true
					ds = append(ds, d)
				}
			}
			return dumpCase{N: n, MutAt: vs[0].(int), Dels: ds, Adds: vs[2].(int)}
		})
	}, nil)
}

// TestKernelDumpConsistency: on this machine's kernel a link dump read in
// small chunks, with devices added and deleted from a second socket between
// chunks, never misses a device present before and after the dump nor
// returns one twice; and the model (the 6.18 netdev index: xarray dump,
// cursor = next ifindex), given the chunk sizes the kernel used and the
// kernel's pacing (reading chunk k builds chunk k+1 at once, so a change
// after chunk k shows from chunk k+2), predicts exactly the devices of
// every chunk and which chunks carry NLM_F_DUMP_INTR.
func TestKernelDumpConsistency(t *testing.T) {
	testseed.NeedKernel(t)
	props := gopter.NewProperties(gopterParams(t, 60))
	props.Property("kernel dump misses nothing stable; model predicts every chunk", prop.ForAll(func(c dumpCase) string {
		msg := dumpConsistencyCase(c)
		if msg != "" {
			return msg + "\nscript:\n" + c.script()
		}
		return ""
	}, genDumpCase()))
	report(t, props)
}

// newKernelAndModel makes a fresh namespace of this kernel and the model of
// its netdev index (6.18: xarray allocation and dumps) holding lo, as the
// namespace does.
func newKernelAndModel() (*kernel.Target, *netdevindex.Table[string], error) {
	tg, err := kernel.New(kernel.Options{})
	if err != nil {
		return nil, nil, err
	}
	model := netdevindex.NewTable[string](netdevindex.Since69())
	if _, err := model.Add(0, "lo"); err != nil {
		tg.Close()
		return nil, nil, err
	}
	return tg, model, nil
}

func dumpConsistencyCase(c dumpCase) string {
	ctx := context.Background()
	tg, model, err := newKernelAndModel()
	if err != nil {
		return err.Error()
	}
	defer tg.Close()
	ifindexOf := map[string]uint32{}
	add := func(name string) error {
		if err := tg.Apply(ctx, rtnl.Request{Op: rtnl.LinkAdd{Name: name, Kind: rtnl.KindIfb}}); err != nil {
			return err
		}
		idx, err := model.Add(0, name)
		ifindexOf[name] = idx
		return err
	}
	for i := 0; i < c.N; i++ {
		if err := add(fmt.Sprintf("d%d", i)); err != nil {
			return err.Error()
		}
	}
	before, err := kernelNames(ctx, tg)
	if err != nil {
		return fmt.Sprintf("reading links before the dump: %v", err)
	}
	var mutErr error
	chunks, err := tg.LinkDumpChunked(4096, func(k int) error {
		if k != c.MutAt {
			return nil
		}
		for _, name := range c.delNames() {
			if err := tg.Apply(ctx, rtnl.Request{Op: rtnl.LinkDel{Dev: name}}); err != nil {
				mutErr = err
			}
		}
		for _, name := range c.addNames() {
			if err := tg.Apply(ctx, rtnl.Request{Op: rtnl.LinkAdd{Name: name, Kind: rtnl.KindIfb}}); err != nil {
				mutErr = err
			}
		}
		return nil
	})
	if err != nil || mutErr != nil {
		return fmt.Sprintf("dump: %v, mutation: %v", err, mutErr)
	}
	after, err := kernelNames(ctx, tg)
	if err != nil {
		return fmt.Sprintf("reading links after the dump: %v", err)
	}

	// The guarantee, on the kernel.
	seen := map[string]int{}
	for _, ch := range chunks {
		for _, l := range ch.Links {
			seen[l.Name]++
		}
	}
	for name := range before {
		if after[name] && seen[name] == 0 {
			return fmt.Sprintf("kernel dump missed %s, present before and after", name)
		}
	}
	for name, n := range seen {
		if n > 1 {
			return fmt.Sprintf("kernel dump returned %s %d times", name, n)
		}
	}

	// The model, replaying the kernel's chunk sizes and pacing.
	dump := netdevindex.NewDump[string](model, nil)
	var got []string
	var want []string
	for i, ch := range chunks {
		if i == c.MutAt+1 { // chunk MutAt+2 is the first built after the change
			// (when the dump is that long: otherwise the change came after it)
			for _, name := range c.delNames() {
				delByName(model, ifindexOf, name)
			}
			for _, name := range c.addNames() {
				idx, err := model.Add(0, name)
				if err != nil {
					return err.Error()
				}
				ifindexOf[name] = idx
			}
		}
		mc := dump.Next(max(len(ch.Links), 1))
		want = append(want, chunkString(ch.Interrupted, ch.Links))
		var ml []kernel.DumpedLink
		for _, e := range mc.Devs {
			ml = append(ml, kernel.DumpedLink{Index: int(e.Ifindex), Name: e.Dev})
		}
		got = append(got, chunkString(mc.Interrupted, ml))
	}
	if tail := dump.Next(1 << 20); len(tail.Devs) > 0 {
		got = append(got, fmt.Sprintf("model has more: %v", tail.Devs))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		return fmt.Sprintf("model and kernel chunks differ\nkernel:\n%s\nmodel:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
	return ""
}

// delByName unregisters a device of the model by name.
func delByName(model *netdevindex.Table[string], ifindexOf map[string]uint32, name string) {
	model.Del(ifindexOf[name])
	delete(ifindexOf, name)
}

func chunkString(intr bool, links []kernel.DumpedLink) string {
	var parts []string
	for _, l := range links {
		parts = append(parts, fmt.Sprintf("%d:%s", l.Index, l.Name))
	}
	flag := ""
	if intr {
		flag = " DUMP_INTR"
	}
	return "[" + strings.Join(parts, " ") + "]" + flag
}

// kernelNames is the set of link names in the namespace. An error must not
// pass for an empty set: the miss check would hold vacuously.
func kernelNames(ctx context.Context, tg *kernel.Target) (map[string]bool, error) {
	st, err := tg.State(ctx, rtnl.Show{Links: true})
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, l := range st.Links {
		out[l.Ifname] = true
	}
	return out, nil
}

// ifindexOp is one step of an ifindex allocation sequence.
type ifindexOp struct {
	Del   bool
	Which int    // for Del: which live device (mod count)
	Index uint32 // for add: 0 lets the kernel pick
}

// TestKernelIfindexAllocation: after random add / delete / explicit-index
// sequences, every ifindex the model allocates equals the kernel's, and an
// explicit index that is taken fails the same way (EEXIST) on both.
func TestKernelIfindexAllocation(t *testing.T) {
	testseed.NeedKernel(t)
	opGen := gen.Weighted([]gen.WeightedGen{
		{Weight: 5, Gen: gen.Const(ifindexOp{})},
		{Weight: 3, Gen: gen.IntRange(0, 100).Map(func(w int) ifindexOp { return ifindexOp{Del: true, Which: w} })},
		{Weight: 2, Gen: gen.IntRange(1, 40).Map(func(i int) ifindexOp { return ifindexOp{Index: uint32(i)} })},
	})
	props := gopter.NewProperties(gopterParams(t, 60))
	props.Property("model ifindexes equal the kernel's", prop.ForAll(func(ops []ifindexOp) string {
		ctx := context.Background()
		tg, model, err := newKernelAndModel()
		if err != nil {
			return err.Error()
		}
		defer tg.Close()
		ifindexOf := map[string]uint32{}
		var live []string
		var log []string
		for i, op := range ops {
			if op.Del {
				if len(live) == 0 {
					continue
				}
				k := op.Which % len(live)
				name := live[k]
				live = append(live[:k], live[k+1:]...)
				kerr := tg.Apply(ctx, rtnl.Request{Op: rtnl.LinkDel{Dev: name}})
				delByName(model, ifindexOf, name)
				log = append(log, "link del "+name)
				if kerr != nil {
					return fmt.Sprintf("kernel refused %q: %v", log[len(log)-1], kerr)
				}
				continue
			}
			name := fmt.Sprintf("x%d", i)
			line := fmt.Sprintf("link add %s type ifb", name)
			if op.Index != 0 {
				line = fmt.Sprintf("link add %s index %d type ifb", name, op.Index)
			}
			log = append(log, line)
			kerr := tg.Apply(ctx, rtnl.Request{Op: rtnl.LinkAdd{Name: name, Kind: rtnl.KindIfb, Index: int32(op.Index)}})
			midx, merr := model.Add(op.Index, name)
			if merr == nil {
				ifindexOf[name] = midx
			}
			if rtnl.Errno(kerr) != rtnl.Errno(merr) {
				return fmt.Sprintf("errno differs at %q: kernel %v, model %v\n%s", line, kerr, merr, strings.Join(log, "\n"))
			}
			if kerr != nil {
				continue
			}
			live = append(live, name)
			kidx := kernelIfindex(ctx, tg, name)
			if kidx != int(midx) {
				return fmt.Sprintf("ifindex differs at %q: kernel %d, model %d\n%s", line, kidx, midx, strings.Join(log, "\n"))
			}
		}
		return ""
	}, gen.SliceOf(opGen)))
	report(t, props)
}

func kernelIfindex(ctx context.Context, tg *kernel.Target, name string) int {
	st, _ := tg.State(ctx, rtnl.Show{Links: true})
	for _, l := range st.Links {
		if l.Ifname == name {
			return l.Ifindex
		}
	}
	return -1
}
