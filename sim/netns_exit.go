package sim

import (
	"errors"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// ErrNetnsExited is returned for requests to a namespace that has exited.
var ErrNetnsExited = errors.New("sim target: the namespace has exited")

// ExitNetns is the namespace's exit, cleanup_net with the device work of
// its pernet exits under one rtnl_lock: br_net_exit_rtnl deletes every
// bridge (br_dev_delete releases its ports), then default_device_exit_batch
// runs each remaining device's ->dellink in reverse list order (the
// loopback, which has none, is queued as it is), and one
// unregister_netdevice_many takes them all: one batch, one rcu_barrier in
// netdev_run_todo. Around it, cleanup_net waits for a grace period before
// the exits and ends with its own rcu_barrier. It is priced as one more
// request; the target takes no request after it.
func (t *Target) ExitNetns() error {
	n, err := t.begin()
	if err != nil {
		return err
	}
	n.exit()
	var cleanup cost.Work
	cleanup.AddUnlocked(cost.StepSynchronizeNet, 1)
	cleanup.AddUnlocked(cost.StepRCUBarrier, 1)
	t.finish(n, cleanup)
	return nil
}

// exit is the device work of a namespace's exit: every bridge deleted
// first, then each remaining device's ->dellink in reverse list order,
// one unregister batch (veth peers elsewhere in it); no request reaches
// the namespace after.
func (n *Netns) exit() {
	var b unregBatch
	for d := range n.listed() {
		if d.kind == rtnl.KindBridge {
			n.dellink(d, &b)
		}
	}
	for d := range n.listedReverse() {
		if !b.has(d) {
			n.dellink(d, &b)
		}
	}
	n.unregisterBatch(b.list)
	n.exited = true
}
