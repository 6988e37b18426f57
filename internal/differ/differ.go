// Package differ runs one script on the sim target and on a kernel target
// and says where they differ: the errno of every line, the links, and the
// link notifications request by request. props and `rtnlsim diff` share
// it, so that a counterexample the property prints replays the same way.
package differ

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/rtnlsim/rtnlsim/internal/compare"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

// Outcome is both sides' results and the first difference ("" when they
// agree).
type Outcome struct {
	Diff   string
	Kernel rtnl.Result
	Sim    rtnl.Result
	// KernelWall is how long the kernel run took.
	KernelWall time.Duration
}

// BridgeForwardDelay is a bridge's default forward delay: that long after
// a port is enabled its forward_delay_timer sends one more notification
// of the port (seen on this kernel: a family-bridge RTM_NEWLINK of the
// port 15.2 s after it came up in an up bridge). The model has no wall clock, so a kernel run that lasted
// longer (a loaded machine) cannot be compared; TooSlow says so.
const BridgeForwardDelay = 15 * time.Second

// TooSlow reports whether the kernel run outlasted the bridge forward
// delay, so that timer notifications may be in it.
func (o Outcome) TooSlow() bool { return o.KernelWall >= BridgeForwardDelay }

// Links runs reqs on a fresh kernel target first, then on a sim target made
// with opts, and compares errnos, links and link notifications.
//
// The kernel target runs with SyncLinkwatch, so each request ends only when
// its linkwatch work has run and every notification carries its request
// number; IPv6 is off in its namespace (the link model has no addresses).
// The addresses the kernel picked at random are handed to the sim
// (opts.MACs), so that what depends on their order, such as which port
// gives a bridge its address, is the same on both sides.
func Links(ctx context.Context, reqs []rtnl.Request, opts sim.Options) (Outcome, error) {
	var out Outcome
	show := rtnl.Show{Links: true, Events: true}
	kt, err := kernel.New(kernel.Options{SyncLinkwatch: true, Sysctls: map[string]string{
		"net/ipv6/conf/all/disable_ipv6": "1", "net/ipv6/conf/default/disable_ipv6": "1",
	}})
	if err != nil {
		return out, fmt.Errorf("kernel: %w", err)
	}
	defer kt.Close()
	start := time.Now()
	if out.Kernel, err = rtnl.Run(ctx, kt, reqs, show, nil); err != nil {
		return out, fmt.Errorf("kernel: %w", err)
	}
	out.KernelWall = time.Since(start)
	opts.Events = true
	opts.MACs = KernelMACs(out.Kernel.Events)
	st := sim.New(opts)
	defer st.Close()
	if out.Sim, err = rtnl.Run(ctx, st, reqs, show, nil); err != nil {
		return out, fmt.Errorf("sim: %w", err)
	}
	out.Diff = compare.Errnos(out.Sim.Errors, out.Kernel.Errors)
	if out.Diff == "" {
		out.Diff = compare.Links(out.Sim.Links, out.Kernel.Links, FixedMACs, func(string) bool { return false })
	}
	if out.Diff == "" {
		// Address and route notifications (the loopback's 127.0.0.1
		// when it comes up) belong to the address model.
		out.Diff = compare.Events(LinkFamilies(out.Sim.Events), LinkFamilies(out.Kernel.Events))
	}
	return out, nil
}

// FixedMACs are addresses that compare as they are: the broadcast address
// and those the generated scripts write.
var FixedMACs = []string{"ff:ff:ff:ff:ff:ff", "02:00:00:00:00:42", "02:00:00:00:00:43", "00:00:00:00:00:00", "01:00:5e:00:00:01"}

// LinkFamilies keeps the notifications of families link and bridge.
func LinkFamilies(evs []rtnl.Event) []rtnl.Event {
	var out []rtnl.Event
	for _, e := range evs {
		if e.Family == "link" || e.Family == "bridge" {
			out = append(out, e)
		}
	}
	return out
}

// KernelMACs is a MAC oracle for the sim made from a kernel run's
// notifications: the address a device had in the first RTM_NEWLINK that
// named it in the window of the request that made it.
func KernelMACs(evs []rtnl.Event) sim.MACOracle {
	type key struct {
		req  int
		name string
	}
	macs := map[key]net.HardwareAddr{}
	for _, e := range evs {
		l, ok := e.Object.(rtnl.Link)
		if !ok || e.Type != "RTM_NEWLINK" || e.Family != "link" {
			continue
		}
		k := key{e.Request, l.Ifname}
		if _, seen := macs[k]; seen {
			continue
		}
		if a, err := net.ParseMAC(l.Address); err == nil {
			macs[k] = a
		}
	}
	return func(req int, name string) net.HardwareAddr { return macs[key{req, name}] }
}
