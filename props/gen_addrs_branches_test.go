package props

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

// addrGenBranches are the branches of the addresses generator
// (gen_addrs_test.go) that TestAddrScriptGenTakesEveryBranch wants taken:
// the keep_addr_on_down lines and prologues, the IPv6 replace and change
// lines and the dynamic addresses' lines.
var addrGenBranches = []string{
	"keep all", "keep default", "keep device", "keep 0", "keep below 0", "keep above 0",
	"keep prologue default", "keep prologue all", "keep: down", "keep: up", "keep: del",
	"addr6 permanent replace", "addr6 permanent change", "addr6 permanent noprefixroute", "addr6 permanent preferred_lft",
	"addr6 dynamic add", "addr6 dynamic replace", "addr6 dynamic change", "addr6 dynamic del", "addr6 deprecated",
}

// addrKeepOutcomes are what the scripts must make keep_addr_on_down do
// (run on the model, which the property holds to the kernel): a down
// that keeps a global address, one that keeps a nodad one, an up that
// announces a kept one again, and an unregister that takes a kept one.
var addrKeepOutcomes = []string{
	"kept over a down", "kept nodad over a down", "kept announced at up", "kept deleted with its device",
}

// addrLftOutcomes are what the scripts must make IPv6 lifetimes and
// modifies do on the model: a prefix route that expires, a deprecated
// address, a replace or change of an address the device has announced,
// one that moves its prefix route to a new metric, and a dynamic
// address's delete that leaves its expiring prefix route.
var addrLftOutcomes = []string{
	"expiring prefix route", "deprecated address", "modify announced", "modify moves the prefix route",
	"expiring route left by a delete",
}

// TestAddrScriptGenTakesEveryBranch draws the scripts of
// TestSimAddrsRoutesMatchKernel's run (its seed, RTNLSIM_SEED, and
// RTNLSIM_SIM_ADDRS_BATCHES batches, drawn as the property draws them)
// and requires every branch of addrGenBranches taken, and every outcome
// of addrKeepOutcomes and addrLftOutcomes reached when the IPv6 scripts
// among them run on the model. No kernel needed.
func TestAddrScriptGenTakesEveryBranch(t *testing.T) {
	branchHits = map[string]int{}
	defer func() { branchHits = nil }()
	batches := envInt(t, "RTNLSIM_SIM_ADDRS_BATCHES", 32, 0)
	params := gopterParams(t, batches)
	params.Rng.Int63() // the big cases' seed, drawn first
	gp := gopter.GenParameters{MinSize: params.MinSize, MaxSize: params.MaxSize, Rng: params.Rng}
	g := gen.SliceOfN(simLinksBatch, addrRouteScriptGen(10, 30))
	var scripts [][]string
	for range batches {
		v, ok := g(&gp).Retrieve()
		if !ok {
			t.Fatal("the generator gave no batch")
		}
		scripts = append(scripts, v.([][]string)...)
	}
	hits := branchHits
	branchHits = nil // running the scripts draws nothing more
	outcomes := map[string]int{}
	ipv6 := 0
	for _, lines := range scripts {
		reqs, err := script.ParseString(strings.Join(lines, "\n") + "\n")
		if err != nil {
			t.Fatalf("generated script does not parse: %v", err)
		}
		if arIPv6(lines) {
			ipv6++
			keepOutcomes(t, reqs, outcomes)
		}
	}
	for _, b := range addrGenBranches {
		if hits[b] == 0 {
			t.Errorf("branch %q never taken in %d scripts", b, len(scripts))
		}
	}
	for b := range hits {
		if !slices.Contains(addrGenBranches, b) {
			t.Errorf("branch %q taken but not in addrGenBranches", b)
		}
	}
	for _, o := range append(slices.Clone(addrKeepOutcomes), addrLftOutcomes...) {
		if outcomes[o] == 0 {
			t.Errorf("no script of %d (%d with IPv6 on) reached %q", len(scripts), ipv6, o)
		}
	}
	t.Logf("%d scripts, %d with IPv6 on; branch hits %v; outcomes %v", len(scripts), ipv6, hits, outcomes)
}

// keepOutcomes runs one script on the model and counts the
// addrKeepOutcomes it reaches, each once a script.
func keepOutcomes(t *testing.T, reqs []rtnl.Request, outcomes map[string]int) {
	t.Helper()
	ctx := context.Background()
	tg := sim.New(sim.Options{Seed: 1, Events: true})
	seen := map[string]bool{}
	// global is a device's IPv6 addresses but link-local ones, with
	// their flags.
	global := func(dev string) []rtnl.AddrInfo {
		st, err := tg.State(ctx, rtnl.Show{Addrs: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []rtnl.AddrInfo
		for _, la := range st.Addrs {
			if la.Ifname != dev {
				continue
			}
			for _, a := range la.AddrInfo {
				if a.Family == "inet6" && !strings.HasPrefix(a.Local, "fe80:") && a.Local != "::1" {
					out = append(out, a)
				}
			}
		}
		return out
	}
	nEvents := 0
	for _, r := range reqs {
		err := tg.Apply(ctx, r)
		evs, eerr := tg.Events(ctx)
		if eerr != nil {
			t.Fatal(eerr)
		}
		mine := evs[nEvents:]
		nEvents = len(evs)
		if err != nil {
			continue
		}
		lftOutcomes(t, tg, r, mine, seen)
		switch op := r.Op.(type) {
		case rtnl.LinkSet:
			switch {
			case op.Up == nil || op.Dev == "":
			case !*op.Up:
				wentDown := slices.ContainsFunc(mine, func(e rtnl.Event) bool { return e.Type == "RTM_NEWLINK" && e.Family == "link" })
				for _, a := range global(op.Dev) {
					if wentDown {
						seen["kept over a down"] = true
						if a.Nodad {
							seen["kept nodad over a down"] = true
						}
					}
				}
			default:
				for _, e := range mine {
					if a, ok := e.Object.(rtnl.AddrEvent); ok && e.Deferred && e.Type == "RTM_NEWADDR" && e.Family == "inet6" &&
						!strings.HasPrefix(a.Local, "fe80:") && a.Local != "::1" {
						seen["kept announced at up"] = true
					}
				}
			}
		case rtnl.LinkDel:
			for _, e := range mine {
				if a, ok := e.Object.(rtnl.AddrEvent); ok && e.Type == "RTM_DELADDR" && e.Family == "inet6" && a.Tentative &&
					!strings.HasPrefix(a.Local, "fe80:") {
					seen["kept deleted with its device"] = true
				}
			}
		}
	}
	for o := range seen {
		outcomes[o]++
	}
}

// lftOutcomes counts the addrLftOutcomes that request r, which the model
// took, reached; evs are its notifications.
func lftOutcomes(t *testing.T, tg *sim.Target, r rtnl.Request, evs []rtnl.Event, seen map[string]bool) {
	t.Helper()
	st, err := tg.State(context.Background(), rtnl.Show{Addrs: true, Routes: true})
	if err != nil {
		t.Fatal(err)
	}
	expiring := map[string]bool{}
	for _, rt := range st.Routes {
		if rt.Expires != nil {
			seen["expiring prefix route"] = true
			expiring[rt.Dst] = true
		}
	}
	for _, la := range st.Addrs {
		for _, a := range la.AddrInfo {
			if a.Family == "inet6" && a.Deprecated {
				seen["deprecated address"] = true
			}
		}
	}
	count := func(typ string, tentative bool) (n int) {
		for _, e := range evs {
			if a, ok := e.Object.(rtnl.AddrEvent); e.Type == typ && ok && a.Tentative == tentative {
				n++
			}
			if _, ok := e.Object.(rtnl.RouteEntry); e.Type == typ && ok {
				n++
			}
		}
		return n
	}
	switch op := r.Op.(type) {
	case rtnl.AddrAdd:
		if op.Mode != rtnl.AddrModeAdd && op.Addr.Prefix.Addr().Is6() && count("RTM_NEWADDR", false) == 1 && count("RTM_NEWADDR", true) == 0 {
			seen["modify announced"] = true
			if count("RTM_DELROUTE", false) > 0 && count("RTM_NEWROUTE", false) > 0 {
				seen["modify moves the prefix route"] = true
			}
		}
	case rtnl.AddrDel:
		if p := op.Addr.Prefix; p.Addr().Is6() && expiring[p.Masked().String()] {
			seen["expiring route left by a delete"] = true
		}
	}
}
