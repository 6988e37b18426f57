package script

import (
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

var linkVerbs = []struct{ name, canon string }{
	// do_iplink's order: "a" is add, "s" set, "d" delete.
	{"add", "add"}, {"set", "set"}, {"change", "set"}, {"chg", "set"}, {"replace", ""}, {"delete", "del"},
	{"show", "show"}, {"lst", "show"}, {"list", "show"}, {"xstats", ""}, {"afstats", ""}, {"property", "property"}, {"help", ""},
}

func parseLink(p *words, verb string, family int) (rtnl.Op, *LineError) {
	v, err := pickVerb("link", verb, linkVerbs)
	if err != nil {
		return nil, err
	}
	p.ctx = "link " + v
	if v == "show" {
		return parseShow(p, "link", family)
	}
	if err := noFamily(family, p.ctx); err != nil {
		return nil, err
	}
	switch v {
	case "add":
		return parseLinkAdd(p)
	case "set":
		return parseLinkSet(p)
	case "property":
		return parseLinkProp(p)
	default:
		return parseLinkDel(p)
	}
}

// parseLinkProp is iplink_prop: add or del, then altname NAME (any number,
// in order) and the device, "dev" optional; iproute2 6.1's
// check_altifname refuses an empty name or one with '/' or a blank.
func parseLinkProp(p *words) (rtnl.Op, *LineError) {
	if !p.more() {
		return nil, errf(p.ctx, `missing "add" or "del"`)
	}
	var op rtnl.LinkProp
	switch w := p.take(); {
	case matches(w, "add"):
	case matches(w, "del"):
		op.Del = true
	default:
		return nil, errf(w, `want "add" or "del"`)
	}
	valid := func(s string) bool { return s != "" && !strings.ContainsAny(s, "/"+blanks+"\v\f") }
	for p.more() {
		w := p.take()
		if matches(w, "altname") {
			s, err := p.arg("altname")
			if err != nil {
				return nil, err
			}
			if !valid(s) {
				return nil, errf(s, "not a valid altname")
			}
			op.AltNames = append(op.AltNames, s)
			continue
		}
		if w == "dev" {
			s, err := p.arg("dev")
			if err != nil {
				return nil, err
			}
			w = s
		}
		if op.Dev != "" {
			return nil, dup("dev", w)
		}
		if !valid(w) {
			return nil, errf(w, `"dev" not a valid ifname`)
		}
		op.Dev = w
	}
	if op.Dev == "" {
		return nil, errf(p.ctx, `"dev" argument is required`)
	}
	return op, nil
}

// ifAliasSize is IFALIASZ: an alias has fewer bytes.
const ifAliasSize = 256

// ethAlen is ETH_ALEN, the addr_len of every device kind the language knows
// (ifb, dummy, veth, bridge, macvlan, vxlan) and of lo.
const ethAlen = 6

// linkArgs is what iplink_parse collects before `type`.
type linkArgs struct {
	dev, name, lower string
	netns            string // `netns NAME`
	index            int32
	addrWord         string // the address as written
	group            *uint32
	attrs            rtnl.LinkAttrs
	kind             string
}

// Keywords iplink_parse knows that the model does not: refused by name.
// Those iproute2 abbreviates are matched as prefixes, in its order.
var linkUnsupportedExact = []string{
	"trailers", "vf", "vrf",
	"mode", "state", "protodown", "protodown_reason", "gso_max_size", "gso_max_segs",
	"gro_max_size", "gso_ipv4_max_size", "gro_ipv4_max_size", "xdp", "xdpgeneric", "xdpdrv",
	"xdpoffload", "altname", "parentdev", "netns-immutable",
}

// parseLinkArgs is iplink_parse up to and including `type KIND`.
func parseLinkArgs(p *words) (*linkArgs, *LineError) {
	a := &linkArgs{}
	seen := keywords{}
	once := seen.once
	for p.more() {
		w := p.take()
		switch {
		case w == "up" || w == "down":
			if seen["up/down"] {
				return nil, errf(w, "duplicate up/down")
			}
			seen["up/down"] = true
			up := w == "up"
			a.attrs.Up = &up
		case w == "name":
			n, err := p.name(w)
			if err != nil {
				return nil, err
			}
			if err := once("name", n); err != nil {
				return nil, err
			}
			a.name = n
		case w == "index":
			v, err := p.numberOnce("index", 1, 1<<31-1, once)
			if err != nil {
				return nil, err
			}
			a.index = int32(v)
		case matches(w, "link"):
			n, err := p.name("link")
			if err != nil {
				return nil, err
			}
			if err := once("link", n); err != nil {
				return nil, err
			}
			a.lower = n
		case matches(w, "address"):
			s, hw, err := p.llAddr("address")
			if err != nil {
				return nil, err
			}
			if err := once("address", s); err != nil {
				return nil, err
			}
			a.attrs.Address = hw
			a.addrWord = s
		case matches(w, "broadcast") || w == "brd":
			// No length check here: the kernel refuses one shorter
			// than the device's (validate_linkmsg, EINVAL).
			_, hw, err := p.llAddr("broadcast")
			if err != nil {
				return nil, err
			}
			a.attrs.Broadcast = hw
		case w == "promisc" || w == "allmulticast" || w == "multicast" || w == "arp" || w == "carrier":
			// Given twice, the last one counts, as in iproute2.
			v, err := p.onOff(w)
			if err != nil {
				return nil, err
			}
			switch w {
			case "promisc":
				a.attrs.Promisc = v
			case "allmulticast":
				a.attrs.AllMulti = v
			case "multicast":
				a.attrs.Multicast = v
			case "arp":
				a.attrs.ARP = v
			default:
				a.attrs.Carrier = v
			}
		case matches(w, "txqueuelen") || w == "qlen" || matches(w, "txqlen"):
			v, err := p.numberOnce("txqueuelen", 0, maxInt, once)
			if err != nil {
				return nil, err
			}
			q := uint32(v)
			a.attrs.TxQueueLen = &q
		case w == "mtu":
			v, err := p.numberOnce("mtu", 0, maxInt, once)
			if err != nil {
				return nil, err
			}
			m := uint32(v)
			a.attrs.MTU = &m
		case w == "netns":
			n, err := p.netnsName(w)
			if err != nil {
				return nil, err
			}
			if err := once("netns", n); err != nil {
				return nil, err
			}
			a.netns = n
		case contains(linkUnsupportedExact, w):
			return nil, p.unsupported(w)
		case matches(w, "master"):
			n, err := p.name("master")
			if err != nil {
				return nil, err
			}
			if err := once("master", n); err != nil {
				return nil, err
			}
			a.attrs.Master = &n
		case matches(w, "nomaster"):
			if err := once("master", w); err != nil {
				return nil, err
			}
			none := ""
			a.attrs.Master = &none
		case matches(w, "dynamic"):
			return nil, p.unsupported(w)
		case matches(w, "type"):
			k, err := p.arg("type")
			if err != nil {
				return nil, err
			}
			a.kind = k
			return a, nil
		case matches(w, "alias"):
			s, err := p.arg("alias")
			if err != nil {
				return nil, err
			}
			if len(s) >= ifAliasSize {
				return nil, errf(s, "alias too long (at most %d bytes)", ifAliasSize-1)
			}
			a.attrs.Alias = &s
		case w == "group":
			v, err := p.namedOnce("group", groups, once)
			if err != nil {
				return nil, err
			}
			g := uint32(v)
			a.group = &g
		case matches(w, "numtxqueues") || matches(w, "numrxqueues") || matches(w, "addrgenmode") ||
			matches(w, "link-netnsid"):
			return nil, p.unsupported(w)
		default:
			n, err := p.devName(w, a.dev != "")
			if err != nil {
				return nil, err
			}
			a.dev = n
		}
	}
	return a, nil
}

// vxlanAddr reads a vxlan's `group`, `remote` or `local` as iproute2's
// vxlan_parse_opt checks them: a group multicast, a remote and a local
// not; group and remote not both; IPv4 only here.
func (p *words) vxlanAddr(o *rtnl.VxlanOpts, w string) *LineError {
	kw := "local"
	switch {
	case matches(w, "group"):
		kw = "group"
	case matches(w, "remote"):
		kw = "remote"
	}
	s, err := p.arg(kw)
	if err != nil {
		return err
	}
	a, ok := parseAddr(s)
	if !ok {
		return errf(s, "invalid %s address", kw)
	}
	if a.Is6() {
		return errf(s, "an IPv6 vxlan endpoint is not supported")
	}
	if kw == "local" {
		if o.Local.IsValid() {
			return dup("local", s)
		}
		if a.IsMulticast() || a.IsUnspecified() {
			return errf(s, "invalid local address")
		}
		o.Local = a
		return nil
	}
	if o.Remote.IsValid() {
		if o.Remote.IsMulticast() != (kw == "group") {
			return errf(s, "vxlan: both group and remote cannot be specified")
		}
		return dup(kw, s)
	}
	if (kw == "group") != a.IsMulticast() || a.IsUnspecified() {
		return errf(s, "invalid %s address", kw)
	}
	o.Remote = a
	return nil
}

// peerAttr reads one of a veth peer's own attributes (iplink_parse's
// mtu, address, txqueuelen, group), reporting whether w was one.
func (p *words) peerAttr(a *rtnl.LinkAttrs, w string) (bool, *LineError) {
	switch {
	case w == "mtu" || matches(w, "txqueuelen") || w == "qlen" || matches(w, "txqlen"):
		v, err := p.number(w, 0, maxInt)
		if err != nil {
			return true, err
		}
		n := uint32(v)
		if w == "mtu" {
			if a.MTU != nil {
				return true, dup("peer mtu", p.w[p.i-1])
			}
			a.MTU = &n
		} else {
			if a.TxQueueLen != nil {
				return true, dup("peer txqueuelen", p.w[p.i-1])
			}
			a.TxQueueLen = &n
		}
	case matches(w, "address"):
		_, hw, err := p.llAddr("address")
		if err != nil {
			return true, err
		}
		if a.Address != nil {
			return true, dup("peer address", p.w[p.i-1])
		}
		a.Address = hw
	case w == "group":
		v, err := p.named(w, groups)
		if err != nil {
			return true, err
		}
		if a.Group != nil {
			return true, dup("peer group", p.w[p.i-1])
		}
		g := uint32(v)
		a.Group = &g
	default:
		return false, nil
	}
	return true, nil
}

func parseLinkAdd(p *words) (rtnl.Op, *LineError) {
	a, err := parseLinkArgs(p)
	if err != nil {
		return nil, err
	}
	op := rtnl.LinkAdd{Index: a.index, LinkAttrs: a.attrs, Netns: a.netns}
	switch {
	case a.name != "" && a.dev != "" && a.name != a.dev:
		return nil, errf(a.dev, "conflicts with name %q", a.name)
	case a.name != "":
		op.Name = a.name
	case a.dev != "":
		op.Name = a.dev
	default:
		return nil, errf("link add", "missing device name")
	}
	op.Group = a.group
	if a.kind == "" {
		return nil, errf("link add", `missing "type KIND"`)
	}
	op.Kind = a.kind
	if !contains(rtnl.Kinds, a.kind) {
		return nil, errf(a.kind, "unknown link type (%v)", rtnl.Kinds)
	}
	p.ctx = "link add type " + a.kind
	if a.lower != "" && a.kind != rtnl.KindMacvlan {
		return nil, errf("link", "only supported with type macvlan")
	}
	op.Lower = a.lower
	switch a.kind {
	case rtnl.KindVeth:
		if !p.more() {
			break
		}
		if w := p.take(); w != "peer" {
			return nil, p.unknown(w)
		}
		for p.more() {
			w := p.take()
			if w == "netns" {
				n, err := p.netnsName(w)
				if err != nil {
					return nil, err
				}
				if op.PeerNetns != "" {
					return nil, dup("peer netns", n)
				}
				op.PeerNetns = n
				continue
			}
			if w == "name" || w == "dev" {
				n, err := p.name(w)
				if err != nil {
					return nil, err
				}
				if op.Peer != "" {
					return nil, dup("peer name", n)
				}
				op.Peer = n
				continue
			}
			if done, err := p.peerAttr(&op.PeerAttrs, w); done || err != nil {
				if err != nil {
					return nil, err
				}
				continue
			}
			if op.Peer != "" {
				return nil, errf(w, `unknown keyword after "peer" (name, netns, mtu, address, txqueuelen and group are supported)`)
			}
			if !validName(w) {
				return nil, errf(w, "%s (only the peer's name is supported after \"peer\")", nameRule)
			}
			op.Peer = w
		}
	case rtnl.KindMacvlan:
		if a.lower == "" {
			return nil, errf("macvlan", `requires "link DEV" before "type"`)
		}
		for p.more() {
			w := p.take()
			if !matches(w, "mode") {
				return nil, p.unknown(w)
			}
			m, err := p.arg("mode")
			if err != nil {
				return nil, err
			}
			if !contains(macvlanModes, m) {
				return nil, errf(m, "invalid macvlan mode (%v)", macvlanModes)
			}
			if op.MacvlanMode != "" {
				return nil, dup("mode", m)
			}
			op.MacvlanMode = m
		}
	case rtnl.KindVxlan:
		for p.more() {
			w := p.take()
			switch {
			case matches(w, "id") || matches(w, "vni"):
				v, err := p.number("id", 0, 1<<24-1)
				if err != nil {
					return nil, err
				}
				if op.VNI != nil {
					return nil, dup("id", p.w[p.i-1])
				}
				vni := uint32(v)
				op.VNI = &vni
			case matches(w, "group") || matches(w, "remote") || matches(w, "local"):
				if err := p.vxlanAddr(&op.Vxlan, w); err != nil {
					return nil, err
				}
			case matches(w, "dev"):
				n, err := p.name("dev")
				if err != nil {
					return nil, err
				}
				if op.Vxlan.Dev != "" {
					return nil, dup("dev", n)
				}
				op.Vxlan.Dev = n
			case matches(w, "ttl") || matches(w, "hoplimit"):
				s, err := p.arg("ttl")
				if err != nil {
					return nil, err
				}
				if op.Vxlan.TTL != nil {
					return nil, dup("ttl", s)
				}
				var ttl uint8
				if s != "auto" {
					v, ok := parseUint(s, 255)
					if !ok {
						return nil, errf(s, "invalid TTL (0..255 or auto)")
					}
					ttl = uint8(v)
				}
				op.Vxlan.TTL = &ttl
			case matches(w, "nolearning"):
				op.Vxlan.NoLearning = true
			case matches(w, "learning"):
				op.Vxlan.NoLearning = false
			case len(w) > 1 && matches(w, "dstport"):
				v, err := p.number("dstport", 0, 0xffff)
				if err != nil {
					return nil, err
				}
				if op.DstPort != nil {
					return nil, dup("dstport", p.w[p.i-1])
				}
				port := uint16(v)
				op.DstPort = &port
			default:
				return nil, p.unknown(w)
			}
		}
		if op.VNI == nil {
			return nil, errf("vxlan", `requires "id VNI"`)
		}
		if op.Vxlan.Remote.IsMulticast() && op.Vxlan.Dev == "" {
			return nil, errf("group", `"group" requires "dev" to be specified`)
		}
	case rtnl.KindBridge:
		if op.Bridge, err = parseBridgeOpts(p); err != nil {
			return nil, err
		}
	default:
		if p.more() {
			return nil, p.unknown(p.peek())
		}
	}
	return op, nil
}

func parseLinkSet(p *words) (rtnl.Op, *LineError) {
	a, err := parseLinkArgs(p)
	if err != nil {
		return nil, err
	}
	var br rtnl.BridgeOpts
	switch a.kind {
	case "":
	case rtnl.KindBridge:
		p.ctx = "link set type bridge"
		if br, err = parseBridgeOpts(p); err != nil {
			return nil, err
		}
	default:
		return nil, p.unsupported("type") // only bridge options can be changed
	}
	if a.index != 0 {
		return nil, errf("index", "can be used only when creating devices")
	}
	if a.lower != "" {
		return nil, p.unsupported("link")
	}
	op := rtnl.LinkSet{LinkAttrs: a.attrs, NewName: a.name, Netns: a.netns, Kind: a.kind, Bridge: br}
	if a.dev == "" {
		if a.kind != "" {
			return nil, p.unsupported("type")
		}
		if a.group == nil {
			return nil, errf("link set", `missing "dev NAME" or "group G"`)
		}
		if a.name != "" {
			return nil, errf("name", `cannot be used with "group" (no dev)`)
		}
		if a.netns != "" {
			return nil, p.unsupported("netns")
		}
		op.GroupSel = a.group
		return op, nil
	}
	op.Dev = a.dev
	op.Group = a.group
	if n := len(a.attrs.Address); n != 0 && n != ethAlen {
		// iplink_parse compares the length with the named device's
		// addr_len (nl_get_ll_addr_len) before sending. Every device the
		// language can make, and lo, has Ethernet's 6 bytes, so the check
		// is made here; a device that does not exist fails this way too
		// instead of with iproute2's "Cannot find device".
		return nil, errf(a.addrWord, "Invalid address length %d - must be %d bytes", n, ethAlen)
	}
	return op, nil
}

func parseLinkDel(p *words) (rtnl.Op, *LineError) {
	var dev string
	var group *uint32
	for p.more() {
		w := p.take()
		switch {
		case w == "group":
			v, err := p.named(w, groups)
			if err != nil {
				return nil, err
			}
			if group != nil {
				return nil, dup("group", p.w[p.i-1])
			}
			g := uint32(v)
			group = &g
		case w == "list":
			if dev != "" || group != nil {
				return nil, errf(w, `cannot be combined with "dev" or "group"`)
			}
			if !p.more() {
				return nil, errf(w, "missing argument")
			}
			var devs []string
			for p.more() {
				n := p.take()
				if !validName(n) {
					return nil, errf(n, nameRule)
				}
				devs = append(devs, n)
			}
			return rtnl.LinkDelList{Devs: devs}, nil
		default:
			n, err := p.devName(w, dev != "")
			if err != nil {
				return nil, err
			}
			dev = n
		}
	}
	switch {
	case dev != "" && group != nil:
		return nil, errf("group", `cannot be combined with "dev"`)
	case group != nil:
		return rtnl.LinkDelGroup{Group: *group}, nil
	case dev != "":
		return rtnl.LinkDel{Dev: dev}, nil
	}
	return nil, errf("link del", `missing "dev NAME", "group G" or "list NAME..."`)
}
