// Package kmeasure times requests on the real kernel target, for fitting
// and checking the model's costs. Seed 001: flushing thousands of IPv4
// addresses of one /8 from one device, with and without
// promote_secondaries.
//
// Every measurement runs in a fresh network namespace made by kernel.New;
// nothing outside it changes.
package kmeasure

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Dev is the device the measurements put their addresses on.
const Dev = "kmeas0"

// Layout says where the N addresses lie.
type Layout int

const (
	// OneSlash8 is the seed's case: 10.a.b.c/8, one subnet, so every
	// address after the first is a secondary of it.
	OneSlash8 Layout = iota
	// Distinct24 puts each address in a /24 of its own (10.a.b.1/24):
	// every address is a primary, there are no secondaries to promote.
	Distinct24
)

func (l Layout) String() string {
	switch l {
	case OneSlash8:
		return "one /8"
	case Distinct24:
		return "distinct /24s"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// Config is one flush measurement.
type Config struct {
	N       int    // addresses on the device before the flush
	Promote bool   // net.ipv4.conf.{all,DEV}.promote_secondaries
	Up      bool   // device brought up before the addresses are added
	Layout  Layout // OneSlash8 unless said otherwise
	// Quiet closes the target's notification subscription
	// (kernel.Target.CloseEvents) before the flush: no listener is joined
	// to any group while the flush runs, as when `ip addr flush` runs
	// alone. Without Quiet the subscription receives and decodes every
	// notification the flush sends (O(N^2) of them with promotion).
	Quiet bool
}

func (c Config) String() string {
	return fmt.Sprintf("n=%d promote=%d up=%v layout=%s quiet=%v", c.N, b2i(c.Promote), c.Up, c.Layout, c.Quiet)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Result is one measured flush.
type Result struct {
	Flush time.Duration // the `addr flush dev DEV` request alone
	Setup time.Duration // namespace, device, sysctls and the N adds
	// Events counts the notifications, by type, that the target's
	// subscription saw between the start of the flush and the settled
	// end (RTM_DELADDR, RTM_NEWADDR from promotions, route changes).
	// Nil for Quiet runs. The counts fall short when the subscription
	// lost notifications or had not caught up within the target's
	// two-second settle limit.
	Events map[string]int
}

// Addrs returns the N prefixes of layout l, in the order they are added.
// OneSlash8 is Slash8Addr's sequence (10.0.0.1, 10.0.0.2, ...
// skipping last octets of 0), so that the model runs the addresses
// measured; Distinct24 takes 10.a.b.1/24 for the consecutive /24s from
// 10.0.0.0/24.
func Addrs(n int, l Layout) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, n)
	switch l {
	case OneSlash8:
		if n > 255*(1<<16)-1 {
			return nil, fmt.Errorf("kmeasure: %d addresses do not fit in one /8", n)
		}
		for i := 0; i < n; i++ {
			out = append(out, Slash8Addr(i))
		}
	case Distinct24:
		if n > 1<<16 {
			return nil, fmt.Errorf("kmeasure: %d /24s do not fit in 10.0.0.0/8", n)
		}
		for i := 0; i < n; i++ {
			out = append(out, netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 1}), 24))
		}
	default:
		return nil, fmt.Errorf("kmeasure: unknown layout %d", int(l))
	}
	return out, nil
}

// Setup is the requests that prepare a measurement, in order: the ifb
// device, the promote_secondaries sysctls (all and the device), the
// device up when asked, then the N address adds.
func Setup(c Config) ([]rtnl.Request, error) {
	addrs, err := Addrs(c.N, c.Layout)
	if err != nil {
		return nil, err
	}
	v := fmt.Sprint(b2i(c.Promote))
	reqs := []rtnl.Request{
		{Op: rtnl.LinkAdd{Name: Dev, Kind: rtnl.KindIfb}},
		{Op: rtnl.Sysctl{Key: "net.ipv4.conf.all.promote_secondaries", Value: v}},
		{Op: rtnl.Sysctl{Key: "net.ipv4.conf." + Dev + ".promote_secondaries", Value: v}},
	}
	if c.Up {
		up := true
		reqs = append(reqs, rtnl.Request{Op: rtnl.LinkSet{Dev: Dev, LinkAttrs: rtnl.LinkAttrs{Up: &up}}})
	}
	for _, p := range addrs {
		reqs = append(reqs, rtnl.Request{Op: rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: p, Dev: Dev}}})
	}
	return reqs, nil
}

// Flush is the measured request: `addr flush dev DEV`.
var Flush = rtnl.Request{Text: "addr flush dev " + Dev, Op: rtnl.AddrFlush{Dev: Dev}}

// newTarget makes a kernel target in a fresh namespace with IPv6 off, so
// that the device carries IPv4 addresses only.
func newTarget() (*kernel.Target, error) {
	return kernel.New(kernel.Options{Sysctls: map[string]string{
		"net/ipv6/conf/all/disable_ipv6": "1", "net/ipv6/conf/default/disable_ipv6": "1",
	}})
}

// Measure sets up c in a fresh kernel target and times the flush alone.
// Afterwards the device must have no IPv4 address left.
func Measure(ctx context.Context, c Config) (Result, error) {
	var res Result
	reqs, err := Setup(c)
	if err != nil {
		return res, err
	}
	t0 := time.Now()
	kt, err := newTarget()
	if err != nil {
		return res, err
	}
	defer kt.Close()
	for i, r := range reqs {
		r.Line = i + 1
		if err := kt.Apply(ctx, r); err != nil {
			return res, fmt.Errorf("kmeasure: setup request %d (%s): %w", i+1, r.Op.Verb(), err)
		}
	}
	// Check the setup, and let its notifications settle before the clock
	// starts.
	st, err := kt.State(ctx, rtnl.Show{Addrs: true})
	if err != nil {
		return res, err
	}
	if got := inetAddrs(st, Dev); got != c.N {
		return res, fmt.Errorf("kmeasure: %v: %d IPv4 addresses after setup, want %d", c, got, c.N)
	}
	before, err := kt.Events(ctx)
	if err != nil {
		return res, err
	}
	res.Setup = time.Since(t0)
	if c.Quiet {
		// No listener while the flush runs: the subscription goes, the
		// request socket (and the namespace) stay.
		kt.CloseEvents()
	}
	// Nor while an earlier namespace is dismantled: that takes rtnl_lock.
	if _, err := kernel.WaitNetnsCleanup(ctx, kernel.NetnsCleanupLimit); err != nil {
		return res, fmt.Errorf("kmeasure: %v: %w", c, err)
	}

	start := time.Now()
	err = kt.Apply(ctx, Flush)
	res.Flush = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("kmeasure: %v: flush: %w", c, err)
	}

	st, err = kt.State(ctx, rtnl.Show{Addrs: true})
	if err != nil {
		return res, err
	}
	if got := inetAddrs(st, Dev); got != 0 {
		return res, fmt.Errorf("kmeasure: %v: %d IPv4 addresses left after the flush", c, got)
	}
	if c.Quiet {
		return res, nil
	}
	after, err := kt.Events(ctx)
	if err != nil {
		return res, fmt.Errorf("kmeasure: %v: events: %w", c, err)
	}
	res.Events = map[string]int{}
	for _, ev := range after[len(before):] {
		res.Events[ev.Type]++
	}
	return res, nil
}

// inetAddrs counts dev's IPv4 addresses in st, -1 when dev is missing.
func inetAddrs(st rtnl.State, dev string) int {
	for _, l := range st.Addrs {
		if l.Ifname != dev {
			continue
		}
		n := 0
		for _, a := range l.AddrInfo {
			if a.Family == "inet" {
				n++
			}
		}
		return n
	}
	return -1
}

// Runs is one configuration of a round-robin measurement (MinRoundRobin):
// K runs asked for; Best, the run with the shortest flush, and All, every
// flush time in run order, filled in.
type Runs struct {
	Config Config
	K      int
	Best   Result
	All    []time.Duration
}

// MinRoundRobin measures every case K times, each run in a fresh
// namespace, one run of each case per round in order, and keeps each
// case's shortest flush. On a shared machine the minimum is the least
// disturbed run, and going round the cases spreads a burst of load over
// one run of several cases instead of every run of one.
func MinRoundRobin(ctx context.Context, cases []*Runs) error {
	for _, c := range cases {
		if c.K < 1 {
			return fmt.Errorf("kmeasure: %s: K must be at least 1", c.Config)
		}
	}
	for round := 0; ; round++ {
		ran := false
		for _, c := range cases {
			if round >= c.K {
				continue
			}
			ran = true
			r, err := Measure(ctx, c.Config)
			if err != nil {
				return err
			}
			c.All = append(c.All, r.Flush)
			if round == 0 || r.Flush < c.Best.Flush {
				c.Best = r
			}
		}
		if !ran {
			return nil
		}
	}
}

// Slash8Addr is the i-th address of the OneSlash8 layout (0-based): 10.0.0.1,
// 10.0.0.2, ... in one /8, skipping host parts whose last octet is 0. It
// panics past the /8's 2^24-2^16 such addresses.
func Slash8Addr(i int) netip.Prefix {
	h := uint32(i)/255<<8 | (uint32(i)%255 + 1)
	if h >= 1<<24-1 {
		panic(fmt.Sprintf("kmeasure: address %d does not fit in one /8", i))
	}
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(h >> 16), byte(h >> 8), byte(h)}), 8)
}
