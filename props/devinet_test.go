package props

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// devinetOp is one generated line on device i0.
type devinetOp struct {
	Kind    int // 0 add, 1 del, 2 sysctl promote, 3 flush
	Host    int // index into devinetHosts
	Len     int
	Label   int // 0 none, else devinetLabels[Label]
	Scope   int // 0 none, 1 link, 2 host, 3 global (explicit)
	Brd     int // 0 none, 1 `brd +`, 2 an explicit broadcast
	Peer    int // 0 none, else a /30 peer 10.9.0.(4*Peer+1)
	Promote bool
	Flush   int // 0 all, 1 to 10.0.0.0/16, 2 label i0:*
}

// Hosts in a few subnets: 10.0.0.0/24 and 10.0.1.0/24 (shared /16),
// 10.1.0.0/24, so that /24, /16 and /32 make shared and distinct subnets.
var devinetHosts = []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.1.1", "10.0.1.2", "10.0.1.3", "10.1.0.1", "10.1.0.2"}
var devinetLabels = []string{"", "i0:1", "i0:2", "i0"}
var devinetScopes = []string{"", "link", "host", "global"}

// devinetPick is v mod n, non-negative: gopter's struct shrinker may leave a
// field outside its generator's range.
func devinetPick(v, n int) int { return ((v % n) + n) % n }

func (o devinetOp) line() string {
	o.Kind, o.Host, o.Label, o.Scope = devinetPick(o.Kind, 4), devinetPick(o.Host, len(devinetHosts)), devinetPick(o.Label, len(devinetLabels)), devinetPick(o.Scope, len(devinetScopes))
	o.Brd, o.Peer, o.Flush = devinetPick(o.Brd, 3), devinetPick(o.Peer, 3), devinetPick(o.Flush, 3)
	if o.Len != 16 && o.Len != 32 {
		o.Len = 24
	}
	switch o.Kind {
	case 2:
		v := 0
		if o.Promote {
			v = 1
		}
		return fmt.Sprintf("sysctl net.ipv4.conf.i0.promote_secondaries=%d", v)
	case 3:
		return []string{"addr flush dev i0", "addr flush dev i0 to 10.0.0.0/16", "addr flush dev i0 label i0:*"}[o.Flush]
	}
	var b strings.Builder
	b.WriteString("addr ")
	b.WriteString([]string{"add", "del"}[o.Kind])
	if o.Peer != 0 {
		fmt.Fprintf(&b, " %s peer 10.9.0.%d/30", devinetHosts[o.Host], 4*o.Peer+1)
	} else {
		fmt.Fprintf(&b, " %s/%d", devinetHosts[o.Host], o.Len)
	}
	if o.Kind == 0 {
		switch o.Brd {
		case 1:
			b.WriteString(" brd +")
		case 2:
			b.WriteString(" brd 10.0.255.7")
		}
		if o.Scope != 0 {
			b.WriteString(" scope " + devinetScopes[o.Scope])
		}
	}
	if o.Label != 0 {
		b.WriteString(" label " + devinetLabels[o.Label])
	}
	b.WriteString(" dev i0")
	return b.String()
}

// genDevinetOp generates lines; promoHeavy keeps to /24s without peers,
// mostly in the global scope, with promotion mostly on, so that primaries
// with secondaries behind other subnets' addresses are deleted often.
func genDevinetOp(promoHeavy bool) gopter.Gen {
	lens := gen.Weighted([]gen.WeightedGen{
		{Weight: 10, Gen: gen.Const(24)}, {Weight: 2, Gen: gen.Const(16)}, {Weight: 1, Gen: gen.Const(32)},
	})
	if promoHeavy {
		lens = gen.Const(24)
	}
	weighted := func(ws ...int) gopter.Gen {
		var g []gen.WeightedGen
		for v, w := range ws {
			g = append(g, gen.WeightedGen{Weight: w, Gen: gen.Const(v)})
		}
		return gen.Weighted(g)
	}
	scope, peer, promote := weighted(14, 2, 1, 1), weighted(20, 1, 1), gen.Bool()
	if promoHeavy {
		scope, peer = weighted(40, 1, 1, 1), gen.Const(0)
		promote = weighted(1, 4).Map(func(v int) bool { return v == 1 })
	}
	addr := gen.Struct(reflect.TypeOf(devinetOp{}), map[string]gopter.Gen{
		"Kind":  weighted(7, 3),
		"Host":  gen.IntRange(0, len(devinetHosts)-1),
		"Len":   lens,
		"Label": weighted(6, 2, 1, 1),
		"Scope": scope,
		"Brd":   weighted(6, 1, 1),
		"Peer":  peer,
	})
	return gen.Weighted([]gen.WeightedGen{
		{Weight: 20, Gen: addr},
		{Weight: 3, Gen: promote.Map(func(p bool) devinetOp { return devinetOp{Kind: 2, Promote: p} })},
		{Weight: 1, Gen: gen.IntRange(0, 2).Map(func(f int) devinetOp { return devinetOp{Kind: 3, Flush: f} })},
	})
}

// devinetSeq is a generated sequence: the initial promote_secondaries
// and the lines.
type devinetSeq struct {
	Promote bool
	Ops     []devinetOp
}

func (s devinetSeq) script() string {
	lines := []string{"link add i0 type ifb", devinetOp{Kind: 2, Promote: s.Promote}.line()}
	for _, o := range s.Ops {
		lines = append(lines, o.line())
	}
	return strings.Join(lines, "\n") + "\n"
}

// applyDevinet drives the model from one parsed request.
func applyDevinet(d *sim.InDevice, op rtnl.Op) error {
	switch o := op.(type) {
	case rtnl.LinkAdd:
		return nil
	case rtnl.AddrAdd:
		return d.NewAddr(sim.IfaRequestOf(o.Addr, true))
	case rtnl.AddrDel:
		return d.DelAddr(sim.IfaRequestOf(o.Addr, false))
	case rtnl.Sysctl:
		d.Promote = o.Value == "1"
		return nil
	case rtnl.AddrFlush:
		return d.Flush(sim.FlushFilter{To: o.To, Label: o.Label})
	}
	return fmt.Errorf("devinet test: unexpected op %T", op)
}

// devinetEvent is what is compared of an address notification.
type devinetEvent struct {
	Request   int // 1-based request whose window it came in
	Type      string
	Local     string
	Address   string
	Prefixlen int
	Secondary bool
	Label     string
}

func kernelAddrEvents(evs []rtnl.Event) []devinetEvent {
	var out []devinetEvent
	for _, e := range evs {
		a, ok := e.Object.(rtnl.AddrEvent)
		if !ok || e.Family != "inet" {
			continue
		}
		out = append(out, devinetEvent{e.Request, e.Type, a.Local, a.Address, a.Prefixlen, a.Secondary, a.Label})
	}
	return out
}

func modelAddrEvents(req int, ns []sim.IfaNotice) []devinetEvent {
	var out []devinetEvent
	for _, n := range ns {
		addr := ""
		if n.Address != n.Local {
			addr = n.Address.String()
		}
		out = append(out, devinetEvent{req, n.Type, n.Local.String(), addr, n.Prefixlen, n.Flags&uapi.IFA_F_SECONDARY != 0, n.Label})
	}
	return out
}

func jsonOf(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

// TestKernelDevinet holds the model of one device's IPv4 address list
// (sim/devinet.go) against the kernel: random add / del / flush lines and
// promote_secondaries switches on one ifb device that stays down (no
// routes through the device), in shared and distinct subnets; the errno
// of every line, the address list (order, flags, label, prefix length,
// peer, broadcast, scope) and the RTM_NEWADDR / RTM_DELADDR notifications
// in order must be equal.
func TestKernelDevinet(t *testing.T) {
	testseed.NeedKernel(t)
	params := gopterParams(t, 250)
	params.MaxSize = 60
	props := gopter.NewProperties(params)
	seqGen := func(promoHeavy bool) gopter.Gen {
		return gen.Struct(reflect.TypeOf(devinetSeq{}), map[string]gopter.Gen{
			"Promote": gen.Bool(),
			"Ops":     gen.SliceOf(genDevinetOp(promoHeavy)),
		})
	}
	runs, lines := 0, 0
	errnos := map[string]int{}
	var work sim.DevinetCounters
	check := func(s devinetSeq) string {
		runs++
		src := s.script()
		reqs, err := script.ParseString(src)
		if err != nil {
			return fmt.Sprintf("parse: %v\n%s", err, src)
		}
		lines += len(reqs)
		ctx := context.Background()
		// SyncLinkwatch: every notification is read in step with its
		// request and numbered with it.
		tg, err := kernel.New(kernel.Options{SyncLinkwatch: true})
		if err != nil {
			return err.Error()
		}
		defer tg.Close()
		d := sim.NewInDevice("i0")
		defer func() {
			c := d.Count
			work.Promotions += c.Promotions
			work.PromoteMoves += c.PromoteMoves
			work.FlushRounds += c.FlushRounds
			work.Notifications += c.Notifications
		}()
		var mev []devinetEvent
		for i, r := range reqs {
			kerr := tg.Apply(ctx, r)
			merr := applyDevinet(d, r.Op)
			mev = append(mev, modelAddrEvents(i+1, d.TakeNotices())...)
			errnos[rtnl.ErrnoName(rtnl.Errno(kerr))]++
			if rtnl.Errno(kerr) != rtnl.Errno(merr) || (kerr == nil) != (merr == nil) {
				return fmt.Sprintf("line %d %q: kernel %v, model %v\n%s", r.Line, r.Text, kerr, merr, src)
			}
		}
		st, err := tg.State(ctx, rtnl.Show{Addrs: true})
		if err != nil {
			return err.Error()
		}
		var got []rtnl.AddrInfo
		for _, la := range st.Addrs {
			if la.Ifname == "i0" {
				got = la.AddrInfo
			}
		}
		want := d.Render()
		if len(got) != 0 || len(want) != 0 {
			if !reflect.DeepEqual(got, want) {
				return fmt.Sprintf("address lists differ\nkernel: %s\nmodel: %s\n%s", jsonOf(got), jsonOf(want), src)
			}
		}
		evs, err := tg.Events(ctx)
		if err != nil {
			return err.Error()
		}
		kev := kernelAddrEvents(evs)
		if len(kev) != 0 || len(mev) != 0 {
			if !reflect.DeepEqual(kev, mev) {
				return fmt.Sprintf("notifications differ\nkernel: %s\nmodel: %s\n%s", jsonOf(kev), jsonOf(mev), src)
			}
		}
		return ""
	}
	props.Property("model address list equals the kernel's", prop.ForAll(check, seqGen(false)))
	props.Property("the same, promotion-heavy", prop.ForAll(check, seqGen(true)))
	report(t, props)
	t.Logf("%d sequences run (shrinking included), %d lines; errnos %v (\"\": success); model: %d promotions (%d moved), %d flush rounds, %d notifications",
		runs, lines, errnos, work.Promotions, work.PromoteMoves, work.FlushRounds, work.Notifications)
}
