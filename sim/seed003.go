package sim

// Seed 003 end to end on the sim target: N dummy devices, each with one
// address 72.j.k.1/24 and up (the seed's tadd-dummy.sh), then one device
// deleted (dummy6666 of 10K in the seed), then every device deleted one by
// one (tdel-dummy.sh), under a FIB profile: linux-4.2-rc3 (fib_table_flush
// pulls every surviving leaf's suffix), linux-4.2 (the fix) or
// linux-6.18. Deleting a device unregisters it (rcu_barrier and the
// rest, as seed 000 prices them), destroys its in_device (RTM_DELADDR,
// fib_del_ifaddr) and flushes the FIB twice (the last address's
// fib_disable_ip and NETDEV_UNREGISTER's).

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Seed003Addr is device l's address (1-based), as the seed's script
// numbers them: 72.j.k.1/24 with j = 1..40, k = 1..250.
func Seed003Addr(l int) string {
	j, k := (l-1)/250+1, (l-1)%250+1
	return fmt.Sprintf("72.%d.%d.1/24", j, k)
}

// Seed003Setup is the seed's tadd-dummy.sh for n devices.
func Seed003Setup(n int) []rtnl.Request {
	var reqs []rtnl.Request
	up := true
	for l := 1; l <= n; l++ {
		name := fmt.Sprintf("dummy%d", l)
		p := netip.MustParsePrefix(Seed003Addr(l))
		reqs = append(reqs,
			rtnl.Request{Text: "link add dev " + name + " type dummy", Op: rtnl.LinkAdd{Name: name, Kind: rtnl.KindDummy}},
			rtnl.Request{Text: "addr add " + p.String() + " dev " + name, Op: rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: p, Dev: name}}},
			rtnl.Request{Text: "link set " + name + " up", Op: rtnl.LinkSet{Dev: name, LinkAttrs: rtnl.LinkAttrs{Up: &up}}})
	}
	for i := range reqs {
		reqs[i].Line = i + 1
	}
	return reqs
}

// Seed003Work is the work of deleting devices in the scenario.
type Seed003Work struct {
	Profile            string `json:"profile"`
	Devices            int    `json:"devices"` // configured
	Deleted            int    `json:"deleted"` // deleted, one request each
	FibOps             int64  `json:"fib_ops"`
	FlushLeafVisits    int64  `json:"flush_leaf_visits"`
	UpdateSuffixVisits int64  `json:"update_suffix_visits"`
	Notifications      int64  `json:"notifications"`
	RCUBarriers        int64  `json:"rcu_barriers"`
	// Ns is the virtual time of the deletions under the params given.
	Ns int64 `json:"ns"`
	// Work is each deletion's cost work.
	Work []CostWork `json:"-"`
}

// Seed003Run sets up n devices under the FIB options, then deletes the
// devices named by victims (1-based) one request each, and returns the
// work of those deletions priced with p.
func Seed003Run(n int, profile string, fib fibtrie.Options, victims []int, p CostParams) (Seed003Work, error) {
	t := New(Options{FIB: fib})
	defer t.Close()
	ctx := context.Background()
	for _, r := range Seed003Setup(n) {
		if err := t.Apply(ctx, r); err != nil {
			return Seed003Work{}, fmt.Errorf("seed 003 setup: line %d %q: %w", r.Line, r.Text, err)
		}
	}
	first := len(t.work)
	for _, v := range victims {
		name := fmt.Sprintf("dummy%d", v)
		if err := t.Apply(ctx, rtnl.Request{Text: "link del " + name, Op: rtnl.LinkDel{Dev: name}}); err != nil {
			return Seed003Work{}, fmt.Errorf("seed 003: link del %s: %w", name, err)
		}
	}
	out := Seed003Work{Profile: profile, Devices: n, Deleted: len(victims), Work: t.work[first:]}
	for _, w := range out.Work {
		out.FibOps += w.Count(StepFibOp)
		out.FlushLeafVisits += w.Count(StepFibFlushLeaf)
		out.UpdateSuffixVisits += w.Count(StepTrieSuffixVisit)
		out.Notifications += w.Count(StepNotification)
		out.RCUBarriers += w.Count(StepRCUBarrier)
	}
	res, err := SimulateCost(p, [][]CostWork{out.Work})
	if err != nil {
		return out, err
	}
	out.Ns = res.VirtualNs
	return out, nil
}
