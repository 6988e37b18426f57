package sim

// The address lists count their walks from indexes (ifaindex.go,
// devinet_count.go) instead of making them. This property holds the
// counted model to the literal one (Netns.literalWalks: every walk step by
// step, as devinet.c and fib_frontend.c make them) on random request
// sequences: several devices and subnets, prefix lengths from /8 to /32,
// peers, scopes, labels, broadcasts, the same local in two subnets, both
// promote settings, flushes, deletes, device down/up, mtu changes,
// renames, unregisters and routes with a prefsrc, under every profile.
// Every counter, each request's cost work, each line's errno, the State
// and the notifications must be the same.

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// walkOp is one generated request: a kind and four parameters.
type walkOp struct{ Kind, A, B, C, D int }

const (
	opAddrAdd = iota
	opAddrDel
	opAddrFlush
	opPromote
	opUpDown
	opMTU
	opRecreate
	opRename
	opRouteSrc
	opLoAddr
	opBurst
	numWalkOps
)

// walkAddVariants is the number of ways opAddrAdd writes its options.
const walkAddVariants = 9

var walkPlens = []int{8, 16, 24, 24, 24, 24, 24, 24, 24, 30, 31, 32}

// walkLine renders op as script lines.
func walkLine(op walkOp) []string {
	dev := fmt.Sprintf("d%d", op.A%3)
	subnet := op.B % 2
	host := 1 + op.C%10
	plen := walkPlens[op.D%len(walkPlens)]
	// Mostly 10/8; sometimes 0/8, whose network address is 0.0.0.0.
	octet := []int{10, 10, 10, 0}[op.B%4]
	addr := fmt.Sprintf("%d.%d.0.%d/%d", octet, subnet, host, plen)
	switch op.Kind {
	case opAddrAdd:
		l := "addr add " + addr
		switch op.D / len(walkPlens) % walkAddVariants {
		case 1:
			l += fmt.Sprintf(" peer 10.%d.1.%d/%d", subnet, host, plen)
		case 2:
			l += " brd +"
		case 3:
			l += fmt.Sprintf(" broadcast 10.%d.0.255", subnet)
		case 4:
			l += " scope link"
		case 5:
			l += fmt.Sprintf(" label %s:%d", dev, host%3)
		case 6:
			l += " noprefixroute"
		case 7:
			l += fmt.Sprintf(" broadcast 10.%d.0.0", subnet)
		case 8:
			l += fmt.Sprintf(" broadcast 10.%d.255.255", subnet)
		}
		return []string{l + " dev " + dev}
	case opAddrDel:
		if op.D%5 == 0 {
			return []string{fmt.Sprintf("addr del 10.%d.0.%d dev %s", subnet, host, dev)}
		}
		return []string{"addr del " + addr + " dev " + dev}
	case opAddrFlush:
		switch op.D % 3 {
		case 1:
			return []string{fmt.Sprintf("addr flush dev %s to 10.%d.0.0/16", dev, subnet)}
		case 2:
			return []string{fmt.Sprintf("addr flush dev %s label %s:*", dev, dev)}
		}
		return []string{"addr flush dev " + dev}
	case opPromote:
		who := []string{dev, "all", "default"}[op.B%3]
		return []string{fmt.Sprintf("sysctl net.ipv4.conf.%s.promote_secondaries=%d", who, op.C%2)}
	case opUpDown:
		return []string{"link set " + dev + []string{" up", " down"}[op.B%2]}
	case opMTU:
		return []string{"link set " + dev + " mtu " + []string{"60", "1500"}[op.B%2]}
	case opRecreate:
		return []string{"link del " + dev, "link add " + dev + " type ifb", "link set " + dev + " up"}
	case opRename:
		return []string{"link set " + dev + " down", "link set " + dev + " name x" + dev, "link set x" + dev + " name " + dev, "link set " + dev + " up"}
	case opRouteSrc:
		return []string{fmt.Sprintf("route add 10.%d.9.0/24 dev %s src 10.%d.0.%d", 10+subnet, dev, subnet, host)}
	case opLoAddr:
		return []string{fmt.Sprintf("addr add 127.0.%d.%d/%d dev lo", subnet, host, []int{8, 16, 32}[op.D%3])}
	case opBurst:
		// A subnet of several addresses whose primary goes: a promotion
		// with secondaries after the promoted one, when promotion is on.
		// The first may have a broadcast address the others lack.
		var l []string
		for h := 1; h <= 2+op.C%6; h++ {
			brd := ""
			if h == 1 && op.A%2 == 0 {
				brd = " brd +"
			}
			l = append(l, fmt.Sprintf("addr add %d.%d.0.%d/%d%s dev %s", octet, subnet, 100+h, plen, brd, dev))
		}
		return append(l, fmt.Sprintf("addr del %d.%d.0.%d/%d dev %s", octet, subnet, 101+op.D%2, plen, dev))
	}
	panic(op.Kind)
}

var walkProfiles = []string{"linux-6.18", "linux-6.4", "linux-4.2-rc3", "linux-4.2", "linux-6.18+ifa-flush"}

// walkRun runs the setup and ops on a fresh target of the profile,
// literal or counted, and returns the target and each line's errno.
func walkRun(profile string, literal bool, lines []string) (*Target, []string, error) {
	p, err := ParseProfile(profile)
	if err != nil {
		return nil, nil, err
	}
	o := p.Options(1)
	o.Events = true
	tg := New(o)
	if literal {
		tg.Netns().setLiteralWalks()
	}
	reqs, err := script.ParseString(strings.Join(lines, "\n") + "\n")
	if err != nil {
		return nil, nil, err
	}
	var errs []string
	for _, r := range reqs {
		err := tg.Apply(context.Background(), r)
		if err != nil && rtnl.Errno(err) == 0 {
			return nil, nil, fmt.Errorf("line %d %q: %w", r.Line, r.Text, err)
		}
		errs = append(errs, rtnl.ErrnoName(rtnl.Errno(err)))
	}
	return tg, errs, nil
}

// walkStats records which branches the generated cases reached.
type walkStats struct {
	promotions, moves, fibDel, fibAdd, flushRounds, cases int
	errnos                                                map[string]int
	mixedLocal                                            int
}

// compareWalks runs lines counted and literal and says how they differ.
func compareWalks(profile string, lines []string, st *walkStats) string {
	fast, fastErrs, err := walkRun(profile, false, lines)
	if err != nil {
		return err.Error()
	}
	lit, litErrs, err := walkRun(profile, true, lines)
	if err != nil {
		return err.Error()
	}
	if !reflect.DeepEqual(fastErrs, litErrs) {
		return fmt.Sprintf("errnos differ:\ncounted %v\nliteral %v", fastErrs, litErrs)
	}
	fn, ln := fast.Netns(), lit.Netns()
	if fn.inetCount != ln.inetCount {
		return fmt.Sprintf("address-list counters differ:\ncounted %+v\nliteral %+v", fn.inetCount, ln.inetCount)
	}
	if fn.fibCount != ln.fibCount {
		return fmt.Sprintf("FIB counters differ:\ncounted %+v\nliteral %+v", fn.fibCount, ln.fibCount)
	}
	if fn.fib.Counters() != ln.fib.Counters() {
		return fmt.Sprintf("fib_trie counters differ:\ncounted %+v\nliteral %+v", fn.fib.Counters(), ln.fib.Counters())
	}
	if !reflect.DeepEqual(fast.Work(), lit.Work()) {
		for i, w := range fast.Work() {
			if lw := lit.Work()[i]; !reflect.DeepEqual(w, lw) {
				return fmt.Sprintf("cost work of request %d differs:\ncounted %v\nliteral %v", i+1, w, lw)
			}
		}
		return "cost work differs"
	}
	show := rtnl.Show{Links: true, Addrs: true, Routes: true, FibTrie: true}
	fs, _ := fast.State(context.Background(), show)
	ls, _ := lit.State(context.Background(), show)
	if !reflect.DeepEqual(fs, ls) {
		return fmt.Sprintf("State differs:\ncounted %+v\nliteral %+v", fs.Addrs, ls.Addrs)
	}
	fe, _ := fast.Events(context.Background())
	le, _ := lit.Events(context.Background())
	if !reflect.DeepEqual(fe, le) {
		return fmt.Sprintf("notifications differ: counted %d, literal %d", len(fe), len(le))
	}
	c := fn.inetCount
	st.cases++
	st.promotions += c.Promotions
	st.moves += c.PromoteMoves
	st.fibDel += c.PromoteFibDel
	st.fibAdd += c.PromoteFibAdd
	st.flushRounds += c.FlushRounds
	for _, e := range fastErrs {
		st.errnos[e]++
	}
	if hasSameLocalTwice(fs) {
		st.mixedLocal++
	}
	return ""
}

// hasSameLocalTwice says whether a device holds one local address in two
// subnets (fib_del_ifaddr's same_prefsrc case, which the counted scan
// hands to the literal one).
func hasSameLocalTwice(s rtnl.State) bool {
	for _, l := range s.Addrs {
		seen := map[string]bool{}
		for _, a := range l.AddrInfo {
			if a.Family == "inet" && seen[a.Local] {
				return true
			}
			seen[a.Local] = true
		}
	}
	return false
}

var walkSetup = []string{
	"link set lo up",
	"link add d0 type ifb", "link add d1 type ifb", "link add d2 type ifb",
	"link set d0 up", "link set d1 up",
}

func genWalkOp() gopter.Gen {
	return gopter.CombineGens(
		gen.Weighted([]gen.WeightedGen{
			{Weight: 16, Gen: gen.Const(opAddrAdd)},
			{Weight: 6, Gen: gen.Const(opAddrDel)},
			{Weight: 1, Gen: gen.Const(opAddrFlush)},
			{Weight: 2, Gen: gen.Const(opPromote)},
			{Weight: 1, Gen: gen.Const(opUpDown)},
			{Weight: 1, Gen: gen.Const(opMTU)},
			{Weight: 1, Gen: gen.Const(opRecreate)},
			{Weight: 1, Gen: gen.Const(opRename)},
			{Weight: 1, Gen: gen.Const(opRouteSrc)},
			{Weight: 1, Gen: gen.Const(opLoAddr)},
			{Weight: 2, Gen: gen.Const(opBurst)},
		}),
		gen.IntRange(0, 2), gen.IntRange(0, 3), gen.IntRange(0, 11), gen.IntRange(0, len(walkPlens)*walkAddVariants-1),
	).Map(func(v []any) walkOp {
		return walkOp{v[0].(int), v[1].(int), v[2].(int), v[3].(int), v[4].(int)}
	})
}

func TestCountedWalksMatchLiteral(t *testing.T) {
	p := gopter.DefaultTestParametersWithSeed(testseed.Get(t, 20150313))
	p.MinSuccessfulTests = 1000
	props := gopter.NewProperties(p)
	st := &walkStats{errnos: map[string]int{}}
	kinds := map[int]int{}
	props.Property("counted address-list walks give the literal walks' counts, state and notifications", prop.ForAll(
		func(profile int, promoteAll bool, ops []walkOp) string {
			lines := append([]string(nil), walkSetup...)
			if promoteAll {
				lines = append(lines, "sysctl net.ipv4.conf.all.promote_secondaries=1")
			}
			for _, op := range ops {
				kinds[op.Kind]++
				lines = append(lines, walkLine(op)...)
			}
			pr := walkProfiles[profile%len(walkProfiles)]
			if msg := compareWalks(pr, lines, st); msg != "" {
				return "profile " + pr + ": " + msg + "\nscript:\n" + strings.Join(lines, "\n")
			}
			return ""
		},
		gen.IntRange(0, len(walkProfiles)-1),
		gen.Bool(),
		gen.SliceOfN(60, genWalkOp()),
	))
	props.TestingRun(t)
	// Every kind of request, and the branches that matter, were reached.
	for k := range numWalkOps {
		require.Positive(t, kinds[k], "op kind %d never generated", k)
	}
	require.Positive(t, st.promotions, "no promotion")
	require.Positive(t, st.moves, "no promotion moved an address")
	require.Positive(t, st.fibDel, "no promotion re-routed a secondary")
	require.Positive(t, st.fibAdd, "no promotion re-added a secondary's routes")
	require.Positive(t, st.flushRounds, "no flush")
	require.Positive(t, st.mixedLocal, "no device held one local in two subnets")
	for _, e := range []string{"EEXIST", "EINVAL", "EADDRNOTAVAIL"} {
		require.Positive(t, st.errnos[e], "no %s", e)
	}
	t.Logf("%d cases: %d promotions (%d moved), %d/%d promoted re-routes, %d flush rounds, %d with one local in two subnets, errnos %v",
		st.cases, st.promotions, st.moves, st.fibDel, st.fibAdd, st.flushRounds, st.mixedLocal, st.errnos)
}
