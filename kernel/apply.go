//go:build linux

package kernel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/jsimonetti/rtnetlink/v2/driver"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Apply carries out one request the way iproute2 would send it.
func (t *Target) Apply(ctx context.Context, req rtnl.Request) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t.reqNo++
	t.dadRestarts = nil // what an earlier request was owed is its own
	t.announceOwed = nil
	t.adding6 = netip.Addr{}
	if a, ok := req.Op.(rtnl.AddrAdd); ok && a.Prefix.Addr().Is6() {
		t.adding6 = a.Prefix.Addr()
	}
	var before []linkMsg
	var upDown *upDownWatch
	if ls, ok := req.Op.(rtnl.LinkSet); ok && t.opts.SyncLinkwatch {
		var err error
		if ls.ARP != nil {
			if before, _, err = t.links(); err != nil {
				return err
			}
		}
		if ls.Up != nil {
			if upDown, err = t.watchUpDown(*ls.Up); err != nil {
				return err
			}
		}
	}
	err := t.apply(ctx, req)
	if t.opts.SyncLinkwatch {
		if before != nil {
			if derr := t.restartedDAD(before); derr != nil {
				return derr
			}
		}
		if upDown != nil {
			if derr := t.afterUpDown(upDown); derr != nil {
				return derr
			}
		}
		if a, ok := req.Op.(rtnl.AddrAdd); ok && err == nil && a.NoDAD && a.Prefix.Addr().Is6() && a.Mode == rtnl.AddrModeAdd {
			// A new nodad address is never tentative: its DAD work
			// still runs, after the request, and announces it
			// (RTM_NEWADDR). (A replace or change may have modified an
			// address the device had, which announces nothing later.)
			if idx, ierr := t.ifindex(a.Dev); ierr == nil {
				t.dadRestarts = map[uint32]int{idx: 1}
			}
		}
		if serr := t.syncLinkwatch(); serr != nil {
			return serr
		}
		t.forgetDeletedKept()
		if serr := t.syncSubs(); serr != nil {
			return serr
		}
		return err
	}
	// The request's notifications are queued before its ack returns, but
	// the reader may not have taken them yet: count the request as
	// activity, so that settle waits for them.
	t.mu.Lock()
	t.lastEvent = time.Now()
	t.mu.Unlock()
	return err
}

func (t *Target) apply(ctx context.Context, req rtnl.Request) error {
	switch op := req.Op.(type) {
	case rtnl.NetnsAdd:
		return t.netnsAdd(op.Name)
	case rtnl.NetnsDel:
		return t.netnsDel(ctx, op.Name)
	case rtnl.ShowOp:
		// The run reads the state itself (rtnl.Run); iproute2 looks
		// the device up first.
		if op.Dev != "" {
			_, err := t.ifindex(op.Dev)
			return err
		}
		return nil
	case rtnl.InNetns:
		return t.inNetns(ctx, req, op)
	case rtnl.RouteGet:
		return t.routeGet(op)
	case rtnl.LinkAdd:
		return t.linkAdd(op)
	case rtnl.LinkSet:
		return t.linkSet(op)
	case rtnl.LinkDel:
		return t.linkDel(op)
	case rtnl.LinkDelGroup:
		m := &rtnetlink.LinkMessage{}
		return t.sendLink(unix.RTM_DELLINK, 0, m, attrs{group: &op.Group})
	case rtnl.LinkDelList:
		return t.linkDelList(op)
	case rtnl.LinkProp:
		return t.linkProp(op)
	case rtnl.AddrAdd:
		flags := netlink.Create | netlink.Excl // ipaddr_modify's flags per verb
		switch op.Mode {
		case rtnl.AddrModeReplace:
			flags = netlink.Create | netlink.Replace
		case rtnl.AddrModeChange:
			flags = netlink.Replace
		}
		return t.addrModify(unix.RTM_NEWADDR, flags, op.Addr)
	case rtnl.AddrDel:
		return t.addrModify(unix.RTM_DELADDR, 0, op.Addr)
	case rtnl.AddrFlush:
		return t.addrFlush(ctx, op)
	case rtnl.RouteAdd:
		return t.routeModify(unix.RTM_NEWROUTE, netlink.Create|netlink.Excl, op.Route)
	case rtnl.RouteReplace:
		return t.routeModify(unix.RTM_NEWROUTE, netlink.Create|netlink.Replace, op.Route)
	case rtnl.RouteAppend:
		return t.routeModify(unix.RTM_NEWROUTE, netlink.Create|netlink.Append, op.Route)
	case rtnl.RouteChange:
		return t.routeModify(unix.RTM_NEWROUTE, netlink.Replace, op.Route)
	case rtnl.RoutePrepend:
		return t.routeModify(unix.RTM_NEWROUTE, netlink.Create, op.Route)
	case rtnl.RouteDel:
		return t.routeModify(unix.RTM_DELROUTE, 0, op.Route)
	case rtnl.RouteFlush:
		return t.routeFlush(op)
	case rtnl.RuleAdd:
		return t.ruleModify(unix.RTM_NEWRULE, op.Rule)
	case rtnl.RuleDel:
		return t.ruleModify(unix.RTM_DELRULE, op.Rule)
	case rtnl.RuleFlush:
		return t.ruleFlush(op)
	case rtnl.NexthopAdd:
		return t.nexthopModify(op)
	case rtnl.NexthopDel:
		return t.nexthopDel(op.ID)
	case rtnl.NexthopFlush:
		return t.nexthopFlush()
	case rtnl.Sysctl:
		return t.sysctl(op)
	}
	return fmt.Errorf("kernel target: %T is not supported", req.Op)
}

// vethPeer is VETH_INFO_PEER as iproute2 sends it: the peer's ifinfomsg
// and its own attributes, those rtnetlink's LinkAttributes does not
// encode included.
type vethPeer struct {
	msg   *rtnetlink.LinkMessage
	extra attrs
}

func (v *vethPeer) New() rtnetlink.LinkDriver { return &vethPeer{} }
func (*vethPeer) Kind() string                { return "veth" }
func (*vethPeer) Decode(*netlink.AttributeDecoder) error {
	return nil
}

func (v *vethPeer) Encode(ae *netlink.AttributeEncoder) error {
	b, err := v.msg.MarshalBinary()
	if err != nil {
		return err
	}
	x, err := v.extra.encode()
	if err != nil {
		return err
	}
	ae.Bytes(1, append(b, x...)) // VETH_INFO_PEER
	return nil
}

// attrs are link attributes rtnetlink's LinkAttributes does not encode (or
// encodes only when non-zero); they are appended to its message.
type attrs struct {
	mtu       *uint32
	group     *uint32
	txqlen    *uint32
	alias     *string // as iproute2 sends it: the bytes, no NUL
	broadcast []byte
	carrier   *bool
}

func (a attrs) encode() ([]byte, error) {
	ae := netlink.NewAttributeEncoder()
	if a.mtu != nil {
		ae.Uint32(unix.IFLA_MTU, *a.mtu)
	}
	if a.group != nil {
		ae.Uint32(unix.IFLA_GROUP, *a.group)
	}
	if a.txqlen != nil {
		ae.Uint32(unix.IFLA_TXQLEN, *a.txqlen)
	}
	if a.alias != nil {
		ae.Bytes(unix.IFLA_IFALIAS, []byte(*a.alias))
	}
	if a.broadcast != nil {
		ae.Bytes(unix.IFLA_BROADCAST, a.broadcast)
	}
	if a.carrier != nil {
		var v uint8
		if *a.carrier {
			v = 1
		}
		ae.Uint8(unix.IFLA_CARRIER, v)
	}
	return ae.Encode()
}

func (t *Target) sendLink(typ uint16, flags netlink.HeaderFlags, m *rtnetlink.LinkMessage, extra attrs) error {
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	x, err := extra.encode()
	if err != nil {
		return err
	}
	_, err = t.execute(typ, flags, append(b, x...))
	return err
}

// ifindex resolves a device name as the kernel would (RTM_GETLINK by
// IFLA_IFNAME); an unknown name is the kernel's ENODEV.
func (t *Target) ifindex(name string) (uint32, error) {
	m := &rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{Name: name}}
	b, err := m.MarshalBinary()
	if err != nil {
		return 0, err
	}
	ext := netlink.NewAttributeEncoder()
	ext.Uint32(unix.IFLA_EXT_MASK, rtextFilterSkipStats)
	x, _ := ext.Encode()
	msgs, err := t.get(unix.RTM_GETLINK, append(b, x...))
	if err != nil {
		return 0, err
	}
	for _, msg := range msgs {
		var lm rtnetlink.LinkMessage
		if msg.Header.Type == unix.RTM_NEWLINK && lm.UnmarshalBinary(msg.Data) == nil {
			return lm.Index, nil
		}
	}
	return 0, rtnl.Errf(unix.ENODEV, "no device %q", name)
}

// linkFlag puts one flag iplink_parse takes into ifi_change and
// ifi_flags (inverted for arp, which is IFF_NOARP).
func linkFlag(m *rtnetlink.LinkMessage, bit uint32, v *bool, invert bool) {
	if v == nil {
		return
	}
	m.Change |= bit
	if *v != invert {
		m.Flags |= bit
	} else {
		m.Flags &^= bit
	}
}

func (t *Target) commonLinkAttrs(m *rtnetlink.LinkMessage, a rtnl.LinkAttrs) (attrs, error) {
	linkFlag(m, unix.IFF_UP, a.Up, false)
	linkFlag(m, unix.IFF_PROMISC, a.Promisc, false)
	linkFlag(m, unix.IFF_ALLMULTI, a.AllMulti, false)
	linkFlag(m, unix.IFF_MULTICAST, a.Multicast, false)
	linkFlag(m, unix.IFF_NOARP, a.ARP, true)
	if len(a.Address) > 0 {
		m.Attributes.Address = a.Address
	}
	if a.Master != nil {
		var idx uint32
		if *a.Master != "" {
			var err error
			if idx, err = t.ifindex(*a.Master); err != nil {
				return attrs{}, err
			}
		}
		m.Attributes.Master = &idx
	}
	return attrs{mtu: a.MTU, group: a.Group, txqlen: a.TxQueueLen, alias: a.Alias, broadcast: a.Broadcast, carrier: a.Carrier}, nil
}

var macvlanModes = map[string]driver.MacvlanMode{
	"private": driver.MacvlanModePrivate, "vepa": driver.MacvlanModeVEPA,
	"bridge": driver.MacvlanModeBridge, "passthru": driver.MacvlanModePassthru,
	"source": driver.MacvlanModeSource,
}

func (t *Target) linkAdd(op rtnl.LinkAdd) error {
	m := &rtnetlink.LinkMessage{Index: uint32(op.Index), Attributes: &rtnetlink.LinkAttributes{Name: op.Name}}
	ns, err := t.netnsAttr(op.Netns)
	if err != nil {
		return err
	}
	peerNs, err := t.netnsAttr(op.PeerNetns)
	if err != nil {
		return err
	}
	m.Attributes.NetNS = ns
	extra, err := t.commonLinkAttrs(m, op.LinkAttrs)
	if err != nil {
		return err
	}
	info := &rtnetlink.LinkInfo{Kind: op.Kind}
	switch op.Kind {
	case rtnl.KindVeth:
		// iproute2 sends VETH_INFO_PEER only with "peer": without it the
		// peer is made from the device's own attributes.
		pa := op.PeerAttrs
		if op.Peer != "" || peerNs != nil || pa.MTU != nil || pa.Address != nil || pa.TxQueueLen != nil || pa.Group != nil {
			peer := &rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{Name: op.Peer, NetNS: peerNs, Address: pa.Address}}
			info.Data = &vethPeer{msg: peer, extra: attrs{mtu: pa.MTU, txqlen: pa.TxQueueLen, group: pa.Group}}
		}
	case rtnl.KindMacvlan:
		if op.MacvlanMode != "" {
			mode, ok := macvlanModes[op.MacvlanMode]
			if !ok {
				return rtnl.Errf(unix.EINVAL, "unknown macvlan mode %q", op.MacvlanMode)
			}
			info.Data = &driver.Macvlan{Mode: &mode}
		}
	case rtnl.KindVxlan:
		// vxlan_parse_opt: IFLA_VXLAN_LEARNING always on an add.
		learning := !op.Vxlan.NoLearning
		vx := &driver.Vxlan{ID: op.VNI, Port: op.DstPort, TTL: op.Vxlan.TTL, Learning: &learning}
		if op.Vxlan.Local.IsValid() {
			vx.Local = ipOf(op.Vxlan.Local)
		}
		if op.Vxlan.Remote.IsValid() {
			vx.Group = ipOf(op.Vxlan.Remote)
		}
		if op.Vxlan.Dev != "" {
			idx, err := t.ifindex(op.Vxlan.Dev)
			if err != nil {
				return err
			}
			vx.Link = &idx
		}
		info.Data = vx
	case rtnl.KindBridge:
		info.Data = bridgeData(op.Bridge)
	}
	if op.Lower != "" {
		idx, err := t.ifindex(op.Lower)
		if err != nil {
			return err
		}
		m.Attributes.Type = idx // IFLA_LINK
	}
	m.Attributes.Info = info
	return t.sendLink(unix.RTM_NEWLINK, netlink.Create|netlink.Excl, m, extra)
}

func (t *Target) linkSet(op rtnl.LinkSet) error {
	m := &rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{}}
	ns, err := t.netnsAttr(op.Netns)
	if err != nil {
		return err
	}
	m.Attributes.NetNS = ns
	extra, err := t.commonLinkAttrs(m, op.LinkAttrs)
	if err != nil {
		return err
	}
	if op.Dev == "" {
		// The group changelink: IFLA_GROUP selects, ifindex 0.
		if op.GroupSel == nil {
			return rtnl.Errf(unix.EINVAL, "link set needs a device or a group")
		}
		if extra.group != nil {
			return rtnl.Errf(unix.EINVAL, "link set group cannot also change the group")
		}
		extra.group = op.GroupSel
		return t.sendLink(unix.RTM_NEWLINK, 0, m, extra)
	}
	idx, err := t.ifindex(op.Dev)
	if err != nil {
		return err
	}
	m.Index = idx
	m.Attributes.Name = op.NewName
	if op.Kind != "" {
		m.Attributes.Info = &rtnetlink.LinkInfo{Kind: op.Kind, Data: bridgeData(op.Bridge)}
	}
	return t.sendLink(unix.RTM_NEWLINK, 0, m, extra)
}

// bridgeData is bridge_parse_opt's IFLA_INFO_DATA, which iproute2 nests
// even when it is empty (so that br_changelink runs and the change is
// notified).
func bridgeData(o rtnl.BridgeOpts) *driver.Bridge {
	b := &driver.Bridge{ForwardDelay: o.ForwardDelay, HelloTime: o.HelloTime, MaxAge: o.MaxAge,
		AgeingTime: o.AgeingTime, Priority: o.Priority, VlanDefaultPvid: o.VlanDefaultPvid}
	if o.StpState != nil {
		s := driver.BridgeStpState(*o.StpState)
		b.StpState = &s
	}
	if o.VlanFiltering != nil {
		v := driver.BridgeEnable(*o.VlanFiltering)
		b.VlanFiltering = &v
	}
	if o.McastSnooping != nil {
		v := driver.BridgeEnable(*o.McastSnooping)
		b.McastSnooping = &v
	}
	return b
}

// linkProp is iplink_prop: RTM_NEWLINKPROP (with NLM_F_EXCL, CREATE and
// APPEND) or RTM_DELLINKPROP for the device's ifindex, the names nested
// in IFLA_PROP_LIST.
func (t *Target) linkProp(op rtnl.LinkProp) error {
	idx, err := t.ifindex(op.Dev)
	if err != nil {
		return err
	}
	m := &rtnetlink.LinkMessage{Index: idx}
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	ae := netlink.NewAttributeEncoder()
	ae.Nested(unix.IFLA_PROP_LIST, func(nae *netlink.AttributeEncoder) error {
		for _, a := range op.AltNames {
			nae.String(unix.IFLA_ALT_IFNAME, a)
		}
		return nil
	})
	x, err := ae.Encode()
	if err != nil {
		return err
	}
	typ, flags := uint16(unix.RTM_NEWLINKPROP), netlink.Excl|netlink.Create|netlink.Append
	if op.Del {
		typ, flags = unix.RTM_DELLINKPROP, 0
	}
	_, err = t.execute(typ, flags, append(b, x...))
	return err
}

func (t *Target) linkDel(op rtnl.LinkDel) error {
	m := &rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{Name: op.Dev}}
	return t.sendLink(unix.RTM_DELLINK, 0, m, attrs{})
}

// linkDelList emulates the seed 000 list delete on a kernel that lacks it:
// every name is resolved first (one unknown name fails the whole request
// with ENODEV and deletes nothing), then each distinct device is deleted;
// a device already taken by an earlier deletion (a veth peer) is skipped.
func (t *Target) linkDelList(op rtnl.LinkDelList) error {
	var idxs []uint32
	seen := map[uint32]bool{}
	for _, name := range op.Devs {
		idx, err := t.ifindex(name)
		if err != nil {
			return err
		}
		if !seen[idx] {
			seen[idx] = true
			idxs = append(idxs, idx)
		}
	}
	for i, idx := range idxs {
		if i > 0 && t.opts.SyncLinkwatch {
			// Each RTM_DELLINK is a request of its own: linkwatch may
			// run between them, so in sync mode it does.
			if err := t.syncLinkwatch(); err != nil {
				return err
			}
		}
		err := t.sendLink(unix.RTM_DELLINK, 0, &rtnetlink.LinkMessage{Index: idx}, attrs{})
		if rtnl.Errno(err) == unix.ENODEV {
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func family(a netip.Addr) uint8 {
	if a.Is4() {
		return unix.AF_INET
	}
	return unix.AF_INET6
}

func ipOf(a netip.Addr) net.IP {
	if !a.IsValid() {
		return nil
	}
	return net.IP(a.AsSlice())
}

// addrModify sends RTM_NEWADDR or RTM_DELADDR as ipaddr_modify does.
func (t *Target) addrModify(typ uint16, flags netlink.HeaderFlags, a rtnl.Addr) error {
	idx, err := t.ifindex(a.Dev)
	if err != nil {
		return err
	}
	local := a.Prefix.Addr()
	m := &rtnetlink.AddressMessage{
		Family:       family(local),
		PrefixLength: uint8(a.Prefix.Bits()),
		Index:        idx,
		Attributes: &rtnetlink.AddressAttributes{
			Local:   ipOf(local),
			Address: ipOf(local),
			Label:   a.Label,
		},
	}
	if a.Peer.IsValid() {
		m.Attributes.Address = ipOf(a.Peer.Addr())
		m.PrefixLength = uint8(a.Peer.Bits())
	}
	if a.Scope != nil {
		m.Scope = *a.Scope
	} else if typ == unix.RTM_NEWADDR && local.Is4() && local.As4()[0] == 127 {
		m.Scope = unix.RT_SCOPE_HOST // iproute2's default_scope
	}
	if a.Broadcast.IsValid() {
		m.Attributes.Broadcast = ipOf(a.Broadcast)
	} else if a.BroadcastAuto && local.Is4() && typ == unix.RTM_NEWADDR && brdBase(a).Bits() < 31 {
		m.Attributes.Broadcast = ipOf(broadcastOf(brdBase(a)))
	}
	if a.NoPrefixRoute {
		m.Attributes.Flags |= unix.IFA_F_NOPREFIXROUTE
	}
	if a.NoDAD {
		m.Attributes.Flags |= unix.IFA_F_NODAD
	}
	b, err := m.MarshalBinary()
	if err == nil && (a.Metric != nil || a.ValidLft != nil || a.PreferredLft != nil) {
		ae := netlink.NewAttributeEncoder()
		if a.Metric != nil {
			ae.Uint32(unix.IFA_RT_PRIORITY, *a.Metric)
		}
		if a.ValidLft != nil || a.PreferredLft != nil {
			// struct ifa_cacheinfo: ifa_prefered, ifa_valid, then the
			// two stamps the kernel does not read; the one not given
			// is forever.
			ci := make([]byte, 16)
			valid, pref := uint32(0xffffffff), uint32(0xffffffff)
			if a.ValidLft != nil {
				valid = *a.ValidLft
			}
			if a.PreferredLft != nil {
				pref = *a.PreferredLft
			}
			nativeEndian.PutUint32(ci[0:], pref)
			nativeEndian.PutUint32(ci[4:], valid)
			ae.Bytes(unix.IFA_CACHEINFO, ci)
		}
		var x []byte
		if x, err = ae.Encode(); err == nil {
			b = append(b, x...)
		}
	}
	if err != nil {
		return err
	}
	if a.Wildcard && !a.Peer.IsValid() && typ == unix.RTM_DELADDR {
		b = dropAttr(b, unix.SizeofIfAddrmsg, unix.IFA_ADDRESS) // IFA_LOCAL alone
	}
	_, err = t.execute(typ, flags, b)
	return err
}

// dropAttr returns msg (a fixed header of hdr bytes, then attributes)
// without its attributes of type typ. The encoder always writes
// IFA_ADDRESS; a wildcard delete must not send it.
func dropAttr(msg []byte, hdr int, typ uint16) []byte {
	out := append([]byte(nil), msg[:hdr]...)
	for b := msg[hdr:]; len(b) >= 4; {
		n := int(nativeEndian.Uint16(b[0:2]))
		if n < 4 || n > len(b) {
			break
		}
		step := min((n+3)&^3, len(b))
		if nativeEndian.Uint16(b[2:4])&^0xc000 != typ {
			out = append(out, b[:step]...)
		}
		b = b[step:]
	}
	return out
}

// brdBase is the prefix iproute2 derives `broadcast +` from: the peer's
// when a peer is given, else the local address's.
func brdBase(a rtnl.Addr) netip.Prefix {
	if a.Peer.IsValid() {
		return a.Peer
	}
	return a.Prefix
}

func broadcastOf(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	host := ^uint32(0) >> p.Bits()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v |= host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// maxFlushRounds is iproute2's max_flush_loops default.
const maxFlushRounds = 10

// addrFlush runs `ip addr flush` itself, in the target's namespace
// (nsenter --net): its deletes interleave with its reads of the chunked
// dump, which decides which deletes promote a secondary, so only iproute2
// reproduces what users get (the sim's model of it: sim/ipflush.go). The
// device is looked up first, so a missing one is ENODEV as for the other
// requests; ip's "Flush remains incomplete" is EBUSY, as the sim says it.
func (t *Target) addrFlush(ctx context.Context, op rtnl.AddrFlush) error {
	if _, err := t.ifindex(op.Dev); err != nil {
		return err
	}
	args := []string{"--net=" + t.ns.path, "ip"}
	if op.Family == 4 || op.Family == 6 {
		args = append(args, fmt.Sprintf("-%d", op.Family))
	}
	args = append(args, "addr", "flush", "dev", op.Dev)
	if op.To.IsValid() {
		args = append(args, "to", op.To.String())
	}
	if op.Label != "" {
		args = append(args, "label", op.Label)
	}
	if op.Scope != nil {
		args = append(args, "scope", strconv.Itoa(int(*op.Scope)))
	}
	if op.Secondary != nil {
		if *op.Secondary {
			args = append(args, "secondary")
		} else {
			args = append(args, "primary")
		}
	}
	out, err := exec.CommandContext(ctx, "nsenter", args...).CombinedOutput()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(string(out))
	if strings.Contains(msg, "Flush remains incomplete") {
		return rtnl.Errf(unix.EBUSY, "flush remains incomplete after %d rounds", maxFlushRounds)
	}
	return fmt.Errorf("kernel target: ip %s: %v: %s", strings.Join(args[2:], " "), err, msg)
}

// prefixMatch is inet_addr_match: a's first p.Bits() bits equal p's.
func prefixMatch(p netip.Prefix, a netip.Addr) bool {
	if p.Addr().BitLen() != a.BitLen() {
		return false
	}
	q, err := a.Prefix(p.Bits())
	return err == nil && q.Addr() == p.Masked().Addr()
}

// routeModify is iproute_modify: the defaults iproute2 fills in
// (rtnl.Route.Header), then one request.
func (t *Target) routeModify(typ uint16, flags netlink.HeaderFlags, r rtnl.Route) error {
	h, err := r.Header(typ == unix.RTM_DELROUTE)
	if err != nil {
		return err
	}
	m := &rtnetlink.RouteMessage{
		Family:    h.Family,
		DstLength: uint8(r.Dst.Bits()),
		Tos:       r.TOS,
		Protocol:  h.Proto,
		Scope:     h.Scope,
		Type:      h.Type,
	}
	if h.Table < 256 {
		m.Table = uint8(h.Table)
	} else {
		m.Table = unix.RT_TABLE_UNSPEC // the id goes in RTA_TABLE
		m.Attributes.Table = h.Table
	}
	if r.Dst.Bits() > 0 {
		m.Attributes.Dst = ipOf(r.Dst.Addr())
	}
	if r.Via.IsValid() {
		m.Attributes.Gateway, m.Attributes.Via = gatewayOf(h.Family, r.Via)
	}
	if r.Src.IsValid() {
		m.Attributes.Src = ipOf(r.Src)
	}
	if r.Metric != nil {
		m.Attributes.Priority = *r.Metric // 0 is omitted: the kernel's default
	}
	if r.Dev != "" {
		idx, err := t.ifindex(r.Dev)
		if err != nil {
			return err
		}
		m.Attributes.OutIface = idx
	}
	// RTA_MULTIPATH as parse_nexthops builds it: per group a rtnexthop
	// (flags, hops = weight-1, ifindex) and its RTA_GATEWAY.
	for _, nh := range r.Nexthops {
		var hop rtnetlink.NextHop
		if nh.Dev != "" {
			idx, err := t.ifindex(nh.Dev)
			if err != nil {
				return err
			}
			hop.Hop.IfIndex = idx
		}
		if nh.Weight > 0 {
			hop.Hop.Hops = uint8(nh.Weight - 1)
		}
		if nh.Onlink {
			hop.Hop.Flags |= unix.RTNH_F_ONLINK
		}
		if nh.Via.IsValid() {
			hop.Gateway, hop.Via = gatewayOf(h.Family, nh.Via)
		}
		m.Attributes.Multipath = append(m.Attributes.Multipath, hop)
	}
	if r.Onlink {
		m.Flags |= unix.RTNH_F_ONLINK
	}
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	extra, err := routeOptions(r)
	if err != nil {
		return err
	}
	_, err = t.execute(typ, flags, append(b, extra...))
	return err
}

// gatewayOf is how iproute2 sends a gateway: RTA_GATEWAY of the route's
// family, else RTA_VIA with the gateway's family.
func gatewayOf(family uint8, gw netip.Addr) (net.IP, *rtnetlink.RouteVia) {
	if gw.Is4() == (family == unix.AF_INET) {
		return ipOf(gw), nil
	}
	f := uint16(unix.AF_INET6)
	if gw.Is4() {
		f = unix.AF_INET
	}
	return nil, &rtnetlink.RouteVia{Family: f, Addr: ipOf(gw)}
}

// routeOptions are the attributes rtnetlink.RouteAttributes has no
// room for, as iproute_modify sends them: RTA_FLOW with the realms, and
// RTA_METRICS with RTAX_MTU (0 too), then RTAX_LOCK when locked.
func routeOptions(r rtnl.Route) ([]byte, error) {
	ae := netlink.NewAttributeEncoder()
	if r.NhID != 0 {
		ae.Uint32(rtaNhID, r.NhID)
	}
	if r.Realms != 0 {
		ae.Uint32(unix.RTA_FLOW, r.Realms)
	}
	if r.MTU != nil {
		ae.Nested(unix.RTA_METRICS, func(nae *netlink.AttributeEncoder) error {
			nae.Uint32(unix.RTAX_MTU, *r.MTU)
			if r.MTULock {
				nae.Uint32(unix.RTAX_LOCK, 1<<unix.RTAX_MTU)
			}
			return nil
		})
	}
	return ae.Encode()
}

// routeFlush is iproute_flush: dump, delete each route that passes the
// filter, repeat until none does.
func (t *Target) routeFlush(op rtnl.RouteFlush) error {
	var oif uint32
	if op.Dev != "" {
		var err error
		if oif, err = t.ifindex(op.Dev); err != nil {
			return err
		}
	}
	table := op.Table
	if table == 0 {
		table = unix.RT_TABLE_MAIN
	}
	fam := uint8(unix.AF_INET)
	switch {
	case op.Family == 6:
		fam = unix.AF_INET6
	case op.Family == 4:
	case table == rtnl.TableAll && op.Dst.IsValid():
		fam = family(op.Dst.Addr())
	case table == rtnl.TableAll:
		fam = unix.AF_UNSPEC
	case op.Dst.IsValid() && op.Dst.Addr().Is6():
		// ip dumps IPv4 for a table whatever the prefix; this kernel
		// then answers that the table does not exist and ip stops.
		return rtnl.Errf(unix.ENOENT, "ipv4: FIB table does not exist")
	}
	for round := 0; ; round++ {
		msgs, err := t.dump(unix.RTM_GETROUTE, make([]byte, unix.SizeofRtMsg))
		if err != nil {
			return err
		}
		var dels []netlink.Message
		for _, msg := range msgs {
			r, ok := parseRoute(msg)
			if !ok || (fam != unix.AF_UNSPEC && r.hdr.Family != fam) || r.hdr.Flags&unix.RTM_F_CLONED != 0 {
				continue
			}
			if table != rtnl.TableAll && r.table != table {
				continue
			}
			if op.Proto != nil && r.hdr.Protocol != *op.Proto {
				continue
			}
			if (op.Scope != nil && r.hdr.Scope != *op.Scope) || (op.Type != nil && r.hdr.Type != *op.Type) {
				continue
			}
			if oif != 0 && r.oif != oif {
				continue
			}
			m := rtnl.FlushMsg{Family: 4, TOS: r.hdr.Tos, DstBits: int(r.hdr.DstLength), DstAddr: r.dst}
			if r.hdr.Family == unix.AF_INET6 {
				m.Family = 6
			}
			m.Metric, _ = r.attrs.u32(unix.RTA_PRIORITY)
			m.Realms, _ = r.attrs.u32(unix.RTA_FLOW)
			m.Gateway, _ = r.attrs.addr(unix.RTA_GATEWAY)
			m.Prefsrc, _ = r.attrs.addr(unix.RTA_PREFSRC)
			if !op.Selects(m) {
				continue
			}
			if op.Dst.IsValid() && !op.Match {
				if int(r.hdr.DstLength) < op.Dst.Bits() || !prefixMatch(op.Dst, r.dst) {
					continue
				}
				if !op.Root && int(r.hdr.DstLength) != op.Dst.Bits() {
					continue
				}
			}
			dels = append(dels, msg)
		}
		if len(dels) == 0 {
			return nil
		}
		if round >= 100 {
			return rtnl.Errf(unix.EBUSY, "route flush not complete after %d rounds", round)
		}
		for _, msg := range dels {
			if _, err := t.execute(unix.RTM_DELROUTE, 0, msg.Data); err != nil {
				return err
			}
		}
	}
}

// sysctlPath is the /proc/sys file of a net.ipv{4,6}.conf.DEV.KEY: DEV is
// everything between the prefix and the last dot, and the file keeps any
// dot of DEV as it is (/proc/sys/net/ipv6/conf/eth0.100/accept_dad), where
// replacing every dot would name net/ipv6/conf/eth0/100/accept_dad.
func sysctlPath(key string) string {
	for _, prefix := range []string{"net.ipv4.conf.", "net.ipv6.conf."} {
		if rest, ok := strings.CutPrefix(key, prefix); ok {
			if i := strings.LastIndex(rest, "."); i > 0 {
				return "/proc/sys/" + strings.ReplaceAll(prefix, ".", "/") + rest[:i] + "/" + rest[i+1:]
			}
		}
	}
	return "/proc/sys/" + strings.ReplaceAll(key, ".", "/")
}

// sysctl writes a net.ipv4.conf or net.ipv6.conf key inside the namespace.
func (t *Target) sysctl(op rtnl.Sysctl) error {
	p := sysctlPath(op.Key)
	if err := t.ns.writeSysctl(p, op.Value); err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) {
			return &rtnl.Error{Errno: errno, Msg: "sysctl " + op.Key}
		}
		return err
	}
	return nil
}
