//go:build linux

package kernel

import (
	"context"

	"github.com/jsimonetti/rtnetlink/v2"
	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Namespaces a script names: each is a target of its own in a fresh
// namespace (as `ip netns add` makes one, without the name in /run/netns:
// nothing outside the target sees it), held by the target that made it.
// Its notifications are read as that target reads its own, numbered by
// the first target's requests, and reported with the first target's.

// netnsAdd is `ip netns add NAME`.
func (t *Target) netnsAdd(name string) error {
	if t.root != nil {
		return t.root.netnsAdd(name)
	}
	if _, ok := t.subs[name]; ok {
		return rtnl.Errf(unix.EEXIST, "Cannot create namespace file: File exists")
	}
	sub, err := newTarget(Options{SyncLinkwatch: t.opts.SyncLinkwatch, Settle: t.opts.Settle}, true)
	if err != nil {
		return err
	}
	sub.root = t
	if t.subs == nil {
		t.subs = map[string]*Target{}
	}
	t.subs[name] = sub
	t.order = append(t.order, name)
	return nil
}

// sub is the target of a named namespace, or the error `ip netns exec`
// and iproute2's netns_get_fd give for a name none has.
func (t *Target) sub(name string) (*Target, error) {
	if t.root != nil {
		return t.root.sub(name) // the names are the first target's
	}
	if s := t.subs[name]; s != nil {
		return s, nil
	}
	return nil, rtnl.Errf(unix.ENOENT, "Cannot open network namespace %q: No such file or directory", name)
}

// inNetns runs op in the named namespace, as `ip netns exec NAME ip ...`.
func (t *Target) inNetns(ctx context.Context, req rtnl.Request, in rtnl.InNetns) error {
	s, err := t.sub(in.Name)
	if err != nil {
		return err
	}
	req.Op = in.Op
	s.reqNo = t.reqNo - 1 // its notifications are numbered as this target's
	return s.Apply(ctx, req)
}

// netnsAttr is IFLA_NET_NS_FD of a named namespace ("": none).
func (t *Target) netnsAttr(name string) (*rtnetlink.NetNS, error) {
	if name == "" {
		return nil, nil
	}
	s, err := t.sub(name)
	if err != nil {
		return nil, err
	}
	return rtnetlink.NetNSForFD(uint32(s.ns.fd)), nil
}

// syncSubs lets the named namespaces' linkwatch work run too: a request
// in one may change a veth peer's carrier in another.
func (t *Target) syncSubs() error {
	for _, name := range t.order {
		s := t.subs[name]
		s.reqNo = t.reqNo
		if err := s.syncLinkwatch(); err != nil {
			return err
		}
	}
	return nil
}

// subStates reads the named namespaces' state.
func (t *Target) subStates(ctx context.Context, show rtnl.Show) ([]rtnl.NetnsState, error) {
	var out []rtnl.NetnsState
	for _, name := range t.order {
		st, err := t.subs[name].State(ctx, show)
		if err != nil {
			return nil, err
		}
		out = append(out, rtnl.NetnsState{Name: name, State: st})
	}
	return out, nil
}
