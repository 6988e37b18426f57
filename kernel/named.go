//go:build linux

package kernel

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
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
	t.ranks = append(t.ranks, name)
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
	err = s.Apply(ctx, req)
	t.answer = s.answer
	return err
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

// netnsDel is `ip netns del NAME`: the namespace's target lets go of it
// (its sockets and descriptor hold it), so the kernel's cleanup_net runs,
// asynchronously, and takes its devices and their veth peers elsewhere.
// The request ends when those peers are gone and linkwatch has settled.
// What the namespace sent before is kept; nothing listens in it after.
func (t *Target) netnsDel(ctx context.Context, name string) error {
	if t.root != nil {
		return t.root.netnsDel(ctx, name)
	}
	s := t.subs[name]
	if s == nil {
		return rtnl.Errf(unix.ENOENT, "Cannot remove namespace file %q: No such file or directory", name)
	}
	// The devices the other namespaces will lose: those whose link
	// is in s (their namespace's id for s, which asking does not make).
	doomed := map[*Target][]uint32{}
	for _, o := range t.all() {
		if o == s {
			continue
		}
		id, ok, err := o.nsidOf(s.ns.fd)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		links, _, err := o.links()
		if err != nil {
			return err
		}
		for _, l := range links {
			if v, ok := l.attrs.u32(unix.IFLA_LINK_NETNSID); ok && int32(v) == id {
				doomed[o] = append(doomed[o], l.hdr.Index)
			}
		}
	}
	if s.opts.SyncLinkwatch {
		s.drainEvents()
	}
	evs, _ := s.Events(ctx)
	for i := range evs {
		evs[i].Netns = name
	}
	t.deadEvents = append(t.deadEvents, evs...)
	s.Close()
	delete(t.subs, name)
	t.order = slices.DeleteFunc(t.order, func(n string) bool { return n == name })
	deadline := time.Now().Add(10 * time.Second)
	for o, idxs := range doomed {
		for {
			links, _, err := o.links()
			if err != nil {
				return err
			}
			left := false
			for _, l := range links {
				left = left || slices.Contains(idxs, l.hdr.Index)
			}
			if !left {
				break
			}
			if time.Now().After(deadline) {
				return errors.New("kernel target: a deleted namespace's veth peers are still there after 10 s")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

// all is this target and its named namespaces' targets.
func (t *Target) all() []*Target {
	out := []*Target{t}
	for _, name := range t.order {
		out = append(out, t.subs[name])
	}
	return out
}

// nsidOf is RTM_GETNSID for the namespace of fd: the id this namespace
// knows it by, if it has one (peernet2id: the query allocates none).
func (t *Target) nsidOf(fd int) (int32, bool, error) {
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(unix.NETNSA_FD, uint32(fd))
	b, err := ae.Encode()
	if err != nil {
		return 0, false, err
	}
	msgs, err := t.get(unix.RTM_GETNSID, append(make([]byte, 4), b...)) // struct rtgenmsg, padded
	if err != nil {
		return 0, false, err
	}
	for _, m := range msgs {
		if m.Header.Type != unix.RTM_NEWNSID || len(m.Data) < 4 {
			continue
		}
		if v, ok := attrTableOf(m.Data[4:]).u32(unix.NETNSA_NSID); ok && int32(v) >= 0 {
			return int32(v), true, nil
		}
	}
	return 0, false, nil
}
