package script

import (
	"math/rand"
	"net"
	"net/netip"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Generators of Ops the language can express: valid names, consistent
// families, kind arguments only with their kind. Names are drawn from an
// alphabet with the characters that need care (quotes, backslash, '=',
// '.', non-ASCII bytes).

const nameAlphabet = "abcdxyz0189.-_@=+%'\"\\\xc3\xa9"

func genName(r *rand.Rand) string {
	for {
		n := 1 + r.Intn(15)
		if r.Intn(3) == 0 {
			n = 1 + r.Intn(4)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = nameAlphabet[r.Intn(len(nameAlphabet))]
		}
		s := string(b)
		// A word that starts with a quote and holds both quote characters
		// has no script form (makeargs has no escapes).
		if (s[0] == '\'' || s[0] == '"') && strings.Contains(s, "'") && strings.Contains(s, `"`) {
			continue
		}
		if validName(s) {
			return s
		}
	}
}

func genU32(r *rand.Rand) uint32 {
	switch r.Intn(4) {
	case 0:
		return 0
	case 1:
		return 0xffffffff
	case 2:
		return uint32(r.Intn(70000))
	}
	return r.Uint32()
}

// genInt is a uint32 iproute2 reads as an int (mtu, txqueuelen, group):
// at most 2^31-1.
func genInt(r *rand.Rand) uint32 { return genU32(r) & maxInt }

func maybeInt(r *rand.Rand) *uint32 {
	if r.Intn(2) == 0 {
		return nil
	}
	v := genInt(r)
	return &v
}

func maybeU32(r *rand.Rand) *uint32 {
	if r.Intn(2) == 0 {
		return nil
	}
	v := genU32(r)
	return &v
}

func maybeU8(r *rand.Rand) *uint8 {
	if r.Intn(2) == 0 {
		return nil
	}
	v := uint8(r.Intn(256))
	return &v
}

func genAddr(r *rand.Rand, family int) netip.Addr {
	if family == 4 {
		var b [4]byte
		r.Read(b[:])
		return netip.AddrFrom4(b)
	}
	var b [16]byte
	r.Read(b[:])
	switch r.Intn(4) {
	case 0: // IPv4-mapped
		copy(b[:], []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff})
	case 1: // link-local, mostly zeros
		b = [16]byte{0xfe, 0x80, 15: b[15]}
	}
	return netip.AddrFrom16(b)
}

func genPrefix(r *rand.Rand, family int) netip.Prefix {
	a := genAddr(r, family)
	return netip.PrefixFrom(a, r.Intn(a.BitLen()+1))
}

func genFamily(r *rand.Rand) int {
	if r.Intn(3) == 0 {
		return 6
	}
	return 4
}

func genLinkAttrs(r *rand.Rand) rtnl.LinkAttrs {
	var a rtnl.LinkAttrs
	a.MTU = maybeInt(r)
	a.Group = maybeInt(r)
	a.TxQueueLen = maybeInt(r)
	if r.Intn(3) == 0 {
		a.Address = make(net.HardwareAddr, 1+r.Intn(32))
		if r.Intn(2) == 0 {
			a.Address = make(net.HardwareAddr, 6)
		}
		r.Read(a.Address)
	}
	switch r.Intn(4) {
	case 0:
		m := genName(r)
		a.Master = &m
	case 1:
		m := ""
		a.Master = &m
	}
	if r.Intn(2) == 0 {
		up := r.Intn(2) == 0
		a.Up = &up
	}
	a.Promisc, a.AllMulti, a.Multicast, a.ARP, a.Carrier = maybeBool(r), maybeBool(r), maybeBool(r), maybeBool(r), maybeBool(r)
	if r.Intn(3) == 0 {
		s := genAlias(r)
		a.Alias = &s
	}
	if r.Intn(3) == 0 {
		a.Broadcast = make(net.HardwareAddr, 1+r.Intn(32))
		r.Read(a.Broadcast)
	}
	return a
}

func maybeBool(r *rand.Rand) *bool {
	if r.Intn(3) != 0 {
		return nil
	}
	v := r.Intn(2) == 0
	return &v
}

// genAlias is an alias up to 24 bytes of letters, blanks, quotes and a
// non-ASCII letter, or empty; one that would need quoting and holds both
// quote characters has no script form and is drawn again ('#' has none
// either: ip -b cuts the line there, quoted or not).
func genAlias(r *rand.Rand) string {
	const alphabet = "ab z\t'\"\\\xc3\xa9"
	for {
		b := make([]byte, r.Intn(25))
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
		}
		s := string(b)
		if quoteWord(s) != s && strings.Contains(s, "'") && strings.Contains(s, `"`) {
			continue
		}
		return s
	}
}

func genAddrBody(r *rand.Rand) rtnl.Addr {
	f := genFamily(r)
	a := rtnl.Addr{Prefix: genPrefix(r, f), Dev: genName(r)}
	if r.Intn(4) == 0 {
		a.Peer = genPrefix(r, f)
	}
	if r.Intn(3) == 0 && len(a.Dev) < 15 {
		a.Label = a.Dev
		if r.Intn(2) == 0 && len(a.Dev) < 13 {
			a.Label += ":" + string(rune('0'+r.Intn(10)))
		}
	}
	if f == 4 {
		switch r.Intn(3) {
		case 0:
			a.Broadcast = genAddr(r, 4)
		case 1:
			a.BroadcastAuto = true
		}
	}
	a.Scope = maybeU8(r)
	a.NoPrefixRoute = r.Intn(3) == 0
	a.NoDAD = r.Intn(3) == 0
	if r.Intn(3) == 0 {
		m := genU32(r)
		a.Metric = &m
	}
	if r.Intn(4) == 0 {
		// ipaddr_modify's rule: a valid lifetime above 0 and not below
		// the preferred one (the one not given is forever).
		valid := uint32(1 + r.Intn(1<<20))
		pref := uint32(r.Intn(int(valid) + 1))
		switch r.Intn(3) {
		case 0:
			a.ValidLft, a.PreferredLft = &valid, &pref
		case 1:
			f := uint32(foreverLft)
			a.ValidLft, a.PreferredLft = &f, &pref
		default:
			f := uint32(foreverLft)
			a.ValidLft = &f
		}
	}
	return a
}

func genRouteBody(r *rand.Rand) rtnl.Route {
	f := genFamily(r)
	var rt rtnl.Route
	if r.Intn(2) == 0 {
		rt.Type = routeTypes[r.Intn(len(routeTypes))]
	}
	rt.Dst = genPrefix(r, f)
	if r.Intn(4) == 0 {
		rt.Dst = netip.PrefixFrom(netip.IPv4Unspecified(), 0)
		if f == 6 {
			rt.Dst = netip.PrefixFrom(netip.IPv6Unspecified(), 0)
		}
	}
	if r.Intn(2) == 0 {
		rt.Via = genAddr(r, f)
		if f == 4 && r.Intn(4) == 0 {
			rt.Via = genAddr(r, 6) // via inet6: RTA_VIA
		}
	}
	if r.Intn(3) == 0 {
		rt.TOS = uint8(r.Intn(256))
	}
	if r.Intn(2) == 0 {
		rt.Dev = genName(r)
	}
	if r.Intn(2) == 0 {
		rt.Table = genU32(r)
		rt.TableUnspec = rt.Table == 0
	}
	rt.Proto = maybeU8(r)
	rt.Scope = maybeU8(r)
	rt.Metric = maybeU32(r)
	if r.Intn(3) == 0 {
		rt.Src = genAddr(r, f)
	}
	if f == 4 {
		rt.Onlink = r.Intn(4) == 0
		if m := maybeU32(r); m != nil {
			rt.MTU, rt.MTULock = m, r.Intn(2) == 0
		}
		switch r.Intn(4) {
		case 0:
			rt.Realms = genU32(r)
		case 1:
			rt.Realms = uint32(r.Intn(256))<<16 | uint32(r.Intn(256))
		}
	}
	if r.Intn(3) == 0 {
		for range 1 + r.Intn(3) {
			var nh rtnl.Nexthop
			if r.Intn(3) != 0 {
				nh.Via = genAddr(r, f)
				if f == 4 && r.Intn(4) == 0 {
					nh.Via = genAddr(r, 6)
				}
			}
			if r.Intn(2) == 0 {
				nh.Dev = genName(r)
			}
			if r.Intn(2) == 0 {
				nh.Weight = 1 + r.Intn(256)
			}
			nh.Onlink = f == 4 && r.Intn(4) == 0 // IPv6: not supported
			if nh == (rtnl.Nexthop{}) {
				nh.Weight = 1 // a bare "nexthop" cannot end the line
			}
			rt.Nexthops = append(rt.Nexthops, nh)
		}
	}
	if f == 4 && r.Intn(4) == 0 {
		// nhid goes with no type, src, onlink, mtu or realms
		rt.Type, rt.Src, rt.Onlink, rt.MTU, rt.MTULock, rt.Realms = "", netip.Addr{}, false, nil, false, 0
		rt.NhID = 1 + genU32(r)%0xfffffffe
	}
	return rt
}

// genNexthopOp is a nexthop request the language can write.
func genNexthopOp(r *rand.Rand) rtnl.Op {
	switch r.Intn(4) {
	case 0:
		return rtnl.NexthopDel{ID: 1 + uint32(r.Intn(1000))}
	case 1:
		return rtnl.NexthopFlush{}
	}
	nh := rtnl.NexthopObj{ID: 1 + genU32(r)%0xfffffffe, V6: r.Intn(3) == 0}
	switch r.Intn(3) {
	case 0:
		nh.Blackhole = true
	case 1:
		for range 1 + r.Intn(3) {
			m := rtnl.NexthopGrpMember{ID: genU32(r)}
			if r.Intn(2) == 0 {
				m.Weight = 1 + r.Intn(256)
			}
			nh.Group = append(nh.Group, m)
		}
	default:
		if r.Intn(3) != 0 {
			nh.Via = genAddr(r, 4)
			if nh.V6 {
				nh.Via = genAddr(r, 6)
			}
		}
		nh.Dev = genName(r)
		nh.Onlink = r.Intn(3) == 0
	}
	return rtnl.NexthopAdd{NexthopObj: nh, Replace: r.Intn(2) == 0}
}

// genOp draws one Op of any type.
// genRule is a rule request the language can write.
func genRule(r *rand.Rand) rtnl.Rule {
	ru := rtnl.Rule{Family: genFamily(r), Not: r.Intn(4) == 0, Fwmark: maybeU32(r), Protocol: maybeU8(r)}
	if r.Intn(2) == 0 {
		p := genU32(r)
		ru.Pref = &p
	}
	if r.Intn(2) == 0 {
		ru.Src = genPrefix(r, ru.Family)
	}
	if r.Intn(3) == 0 {
		ru.Dst = genPrefix(r, ru.Family)
	}
	if r.Intn(3) == 0 {
		ru.TOS = uint8(1 + r.Intn(255))
	}
	if ru.Fwmark != nil && r.Intn(2) == 0 {
		ru.Fwmask = maybeU32(r)
	}
	if r.Intn(3) == 0 {
		ru.Iif = genName(r)
	}
	if r.Intn(3) == 0 {
		ru.Oif = genName(r)
	}
	if r.Intn(2) == 0 {
		t := genU32(r)
		ru.Table = &t
	}
	if r.Intn(4) == 0 {
		pl := int32(genInt(r))
		ru.SuppressPrefixlen = &pl
	}
	switch r.Intn(6) {
	case 0:
		g := genU32(r)
		ru.Action, ru.Goto = rtnl.RuleActGoto, &g
	case 1:
		ru.Action = rtnl.RuleActNop
	case 2:
		ru.Action = []uint8{rtnl.RuleActBlackhole, rtnl.RuleActUnreachable, rtnl.RuleActProhibit}[r.Intn(3)]
	}
	if reflect.DeepEqual(ru, rtnl.Rule{Family: ru.Family}) {
		p := genU32(r) // a rule line needs an argument
		ru.Pref = &p
	}
	return ru
}

func genOp(r *rand.Rand) rtnl.Op {
	switch r.Intn(20) {
	case 19:
		return genNexthopOp(r)
	case 18:
		op := rtnl.ShowOp{Object: []string{"link", "addr", "route", "rule", "nexthop"}[r.Intn(5)]}
		switch op.Object {
		case "link":
			if r.Intn(2) == 0 {
				op.Dev = genName(r)
			}
		case "addr":
			op.Family = []int{0, 4, 6}[r.Intn(3)]
			if r.Intn(2) == 0 {
				op.Dev = genName(r)
			}
		case "route":
			op.Family = []int{0, 4, 6}[r.Intn(3)]
			if r.Intn(2) == 0 {
				op.Table = []uint32{rtnl.TableAll, 100, 255}[r.Intn(3)]
			}
		case "rule":
			op.Family = []int{0, 6}[r.Intn(2)]
		}
		return op
	case 16:
		if r.Intn(4) == 0 {
			op := rtnl.RouteGet{Dst: netip.AddrFrom4([4]byte{10, byte(r.Intn(256)), 0, byte(r.Intn(256))})}
			if r.Intn(2) == 0 {
				op.Src = netip.AddrFrom4([4]byte{10, 0, 0, byte(r.Intn(256))})
			}
			if r.Intn(2) == 0 {
				op.IIF = genName(r)
			}
			if r.Intn(2) == 0 {
				op.OIF = genName(r)
			}
			if r.Intn(2) == 0 {
				op.TOS = uint8(r.Intn(256))
			}
			if r.Intn(2) == 0 {
				op.Mark = uint32(r.Intn(1 << 31))
			}
			if r.Intn(2) == 0 {
				u := uint32(r.Intn(1 << 31))
				op.UID = &u
			}
			op.FibMatch = r.Intn(2) == 0
			return op
		}
		if r.Intn(3) == 0 {
			return rtnl.NetnsDel{Name: genName(r)}
		}
		return rtnl.NetnsAdd{Name: genName(r)}
	case 17:
		for {
			op := genOp(r)
			switch op.(type) {
			case rtnl.InNetns, rtnl.NetnsAdd, rtnl.NetnsDel:
				continue
			}
			return rtnl.InNetns{Name: genName(r), Op: op}
		}
	case 15:
		switch r.Intn(3) {
		case 0:
			return rtnl.RuleDel{Rule: genRule(r)}
		case 1:
			return rtnl.RuleFlush{Family: genFamily(r)}
		}
		return rtnl.RuleAdd{Rule: genRule(r)}
	case 0:
		op := rtnl.LinkAdd{Name: genName(r), Kind: rtnl.Kinds[r.Intn(len(rtnl.Kinds))], LinkAttrs: genLinkAttrs(r)}
		if r.Intn(4) == 0 {
			op.Netns = genName(r)
		}
		if r.Intn(2) == 0 {
			op.Index = int32(1 + r.Intn(1<<31-1))
		}
		switch op.Kind {
		case rtnl.KindVeth:
			if r.Intn(2) == 0 {
				op.Peer = genName(r)
			}
			if r.Intn(3) == 0 {
				op.PeerNetns = genName(r)
			}
			if r.Intn(3) == 0 {
				op.PeerAttrs.MTU = maybeInt(r)
				op.PeerAttrs.TxQueueLen = maybeInt(r)
				op.PeerAttrs.Group = maybeInt(r)
				if r.Intn(2) == 0 {
					op.PeerAttrs.Address = net.HardwareAddr{2, byte(r.Intn(256)), 0, 0, 0, byte(r.Intn(256))}
				}
			}
		case rtnl.KindMacvlan:
			op.Lower = genName(r)
			if r.Intn(2) == 0 {
				op.MacvlanMode = macvlanModes[r.Intn(len(macvlanModes))]
			}
		case rtnl.KindVxlan:
			vni := uint32(r.Intn(1 << 24))
			op.VNI = &vni
			if r.Intn(2) == 0 {
				p := uint16(r.Intn(1 << 16))
				op.DstPort = &p
			}
			if r.Intn(2) == 0 {
				v := &op.Vxlan
				if r.Intn(2) == 0 {
					v.Local = netip.AddrFrom4([4]byte{10, 0, byte(r.Intn(256)), 1})
				}
				switch r.Intn(3) {
				case 0:
					v.Remote = netip.AddrFrom4([4]byte{10, 9, 0, byte(1 + r.Intn(200))})
				case 1:
					v.Remote = netip.AddrFrom4([4]byte{239, 1, 1, byte(1 + r.Intn(200))})
					v.Dev = genName(r)
				}
				if r.Intn(2) == 0 {
					v.Dev = genName(r)
				}
				if r.Intn(2) == 0 {
					ttl := uint8(r.Intn(256))
					v.TTL = &ttl
				}
				v.NoLearning = r.Intn(2) == 0
			}
		case rtnl.KindBridge:
			op.Bridge = genBridgeOpts(r)
		}
		return op
	case 1:
		op := rtnl.LinkSet{LinkAttrs: genLinkAttrs(r)}
		if r.Intn(4) == 0 {
			op.Group = nil
			g := genInt(r)
			op.GroupSel = &g
		} else {
			op.Dev = genName(r)
			if r.Intn(3) == 0 {
				op.NewName = genName(r)
			}
			if r.Intn(4) == 0 {
				op.Netns = genName(r)
			}
			if len(op.Address) != 0 {
				op.Address = append(op.Address, make(net.HardwareAddr, 6)...)[:6] // a named device's length
			}
			if r.Intn(4) == 0 {
				op.Kind, op.Bridge = rtnl.KindBridge, genBridgeOpts(r)
			}
		}
		return op
	case 2:
		return rtnl.LinkDel{Dev: genName(r)}
	case 3:
		return rtnl.LinkDelGroup{Group: genInt(r)}
	case 4:
		op := rtnl.LinkDelList{}
		for n := 1 + r.Intn(5); n > 0; n-- {
			op.Devs = append(op.Devs, genName(r))
		}
		return op
	case 5:
		return rtnl.AddrAdd{Addr: genAddrBody(r), Mode: rtnl.AddrMode(r.Intn(3))}
	case 6:
		return rtnl.AddrDel{Addr: genAddrBody(r)}
	case 7:
		op := rtnl.AddrFlush{Dev: genName(r), Family: []int{0, 4, 6}[r.Intn(3)]}
		if r.Intn(3) == 0 {
			sc := uint8(genU32(r))
			op.Scope = &sc
		}
		if r.Intn(3) == 0 {
			sec := r.Intn(2) == 0
			op.Secondary = &sec
		}
		if r.Intn(2) == 0 {
			f := op.Family
			if f == 0 {
				f = genFamily(r)
			}
			op.To = genPrefix(r, f)
		}
		if r.Intn(3) == 0 {
			op.Label = genName(r) + "*"
		}
		return op
	case 8:
		return rtnl.RouteAdd{Route: genRouteBody(r)}
	case 9:
		return rtnl.RouteDel{Route: genRouteBody(r)}
	case 10:
		return rtnl.RouteReplace{Route: genRouteBody(r)}
	case 11:
		switch r.Intn(3) {
		case 0:
			return rtnl.RoutePrepend{Route: genRouteBody(r)}
		case 1:
			return rtnl.RouteChange{Route: genRouteBody(r)}
		}
		return rtnl.RouteAppend{Route: genRouteBody(r)}
	case 12:
		op := rtnl.RouteFlush{Family: []int{0, 4, 6}[r.Intn(3)], Proto: maybeU8(r)}
		if r.Intn(3) == 0 {
			sc := uint8(genU32(r))
			op.Scope = &sc
		}
		if r.Intn(3) == 0 {
			ty := uint8(1 + r.Intn(11)) // rtnl_rtntype_a2n's names
			op.Type = &ty
		}
		switch r.Intn(3) {
		case 1:
			op.Table = rtnl.TableAll
		case 2:
			op.Table = 1 + uint32(r.Intn(1000))
		}
		if r.Intn(2) == 0 {
			op.Dev = genName(r)
		}
		if r.Intn(2) == 0 {
			f := op.Family
			if f == 0 {
				f = genFamily(r)
			}
			op.Dst = genPrefix(r, f)
			switch r.Intn(3) {
			case 0:
				op.Root = true
			case 1:
				op.Match = true
			}
		}
		if r.Intn(4) == 0 {
			tos, m := uint8(genU32(r)), genU32(r)
			op.TOS, op.Metric = &tos, &m
		}
		for _, pf := range []*netip.Prefix{&op.Via, &op.Src} {
			if r.Intn(4) == 0 {
				f := op.Family
				if f == 0 {
					f = genFamily(r)
				}
				*pf = genPrefix(r, f)
			}
		}
		if r.Intn(4) == 0 {
			// What a realms word can say: TO, FROM/, FROM/TO, a number.
			from, to := uint32(r.Intn(256)), uint32(r.Intn(256))
			v, mask := []uint32{to, from << 16, from<<16 | to, 70000}[r.Intn(4)], []uint32{0xffff, 0xffff0000, ^uint32(0), ^uint32(0)}
			m := mask[0]
			switch {
			case v == 70000:
				m = ^uint32(0)
			case v == from<<16|to && v != to && v != from<<16:
				m = mask[2]
			case v == from<<16 && from != 0:
				m = mask[1]
			}
			op.Realms, op.RealmsMask = &v, m
		}
		if op.Table == 0 && op.Dev == "" && op.Proto == nil && !op.Dst.IsValid() {
			op.Table = rtnl.TableAll // iproute2 refuses a flush without a selector
		}
		return op
	case 13:
		op := rtnl.LinkProp{Dev: genName(r), Del: r.Intn(2) == 0}
		for n := r.Intn(4); n > 0; n-- {
			// Up to 30 bytes; a word that would need quoting and holds
			// both quote characters has no script form.
			a := genName(r) + genName(r)
			for quoteWord(a) != a && strings.Contains(a, "'") && strings.Contains(a, `"`) {
				a = genName(r) + genName(r)
			}
			op.AltNames = append(op.AltNames, a)
		}
		return op
	}
	dev := []string{"all", "default", genName(r)}[r.Intn(3)]
	return rtnl.Sysctl{Key: confPrefix + dev + ".promote_secondaries", Value: []string{"0", "1"}[r.Intn(2)]}
}

var opGen gopter.Gen = func(gp *gopter.GenParameters) *gopter.GenResult {
	return gopter.NewGenResult(genOp(gp.Rng), gopter.NoShrinker)
}

func TestFormatRoundTrip(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(testseed.Get(t, 20261202))
	params.MinSuccessfulTests = 3000
	if n := os.Getenv("SCRIPT_ROUNDTRIP_N"); n != "" {
		params.MinSuccessfulTests, _ = strconv.Atoi(n)
	}
	props := gopter.NewProperties(params)
	props.Property("Parse(Format(op)) == op", prop.ForAll(func(op rtnl.Op) (bool, error) {
		text := Format(op)
		reqs, err := ParseString(text)
		if err != nil {
			t.Logf("%q: %v", text, err)
			return false, nil
		}
		if len(reqs) != 1 || !reflect.DeepEqual(reqs[0].Op, op) {
			t.Logf("%q: got %#v, want %#v", text, reqs, op)
			return false, nil
		}
		return true, nil
	}, opGen))
	props.TestingRun(t)
}

func TestFormatPointerAndUnknown(t *testing.T) {
	op := rtnl.LinkDel{Dev: "d0"}
	if got := Format(&op); got != "link del dev d0" {
		t.Fatalf("Format(&op) = %q", got)
	}
	if got := Format(nil); !strings.HasPrefix(got, "#") {
		t.Fatalf("Format(nil) = %q", got)
	}
}

func TestFormatCanonical(t *testing.T) {
	cases := []struct {
		op   rtnl.Op
		want string
	}{
		{rtnl.LinkDel{Dev: `a\`}, `link del dev 'a\'`},
		{rtnl.LinkDel{Dev: `'a\`}, `link del dev "'a\"`},
		{rtnl.LinkDelList{Devs: []string{`a\`, `b'"\`}}, `link del list a\ b'"\ #`},
		{rtnl.LinkAdd{Name: "v0", Kind: "veth", Peer: "v1", LinkAttrs: rtnl.LinkAttrs{Up: bp(true)}},
			"link add name v0 up type veth peer name v1"},
		{rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("0.0.0.0/0"), Via: ip("10.0.0.1"), Table: 254, Proto: u8(4), Scope: u8(0)}},
			"route add default via 10.0.0.1 table main proto static scope global"},
		{rtnl.RouteFlush{Table: rtnl.TableAll, Family: 6}, "-6 route flush table all"},
		{rtnl.Sysctl{Key: "net.ipv4.conf.all.promote_secondaries", Value: "1"}, "sysctl net.ipv4.conf.all.promote_secondaries=1"},
	}
	for _, c := range cases {
		if got := Format(c.op); got != c.want {
			t.Errorf("Format(%#v) = %q, want %q", c.op, got, c.want)
		}
		reqs, err := ParseString(c.want)
		if err != nil || len(reqs) != 1 || !reflect.DeepEqual(reqs[0].Op, c.op) {
			t.Errorf("Parse(%q) = %#v, %v; want %#v", c.want, reqs, err, c.op)
		}
	}
}

// genBridgeOpts gives each bridge option or not, at any value of its width.
func genBridgeOpts(r *rand.Rand) rtnl.BridgeOpts {
	var o rtnl.BridgeOpts
	u32 := func() *uint32 {
		if r.Intn(3) != 0 {
			return nil
		}
		v := r.Uint32()
		return &v
	}
	u16 := func() *uint16 {
		if r.Intn(3) != 0 {
			return nil
		}
		v := uint16(r.Intn(1 << 16))
		return &v
	}
	u8 := func() *uint8 {
		if r.Intn(3) != 0 {
			return nil
		}
		v := uint8(r.Intn(1 << 8))
		return &v
	}
	o.ForwardDelay, o.HelloTime, o.MaxAge, o.AgeingTime, o.StpState = u32(), u32(), u32(), u32(), u32()
	o.Priority, o.VlanDefaultPvid = u16(), u16()
	o.VlanFiltering, o.McastSnooping = u8(), u8()
	return o
}
