package props

import (
	"fmt"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// Script generators: lines of the ip -b language over a small pool of names
// and addresses, so that lines meet each other (a set finds its device, a
// delete finds its route) often enough to reach interesting state, and miss
// often enough to reach the errno paths.

var (
	devNames   = []string{"i0", "i1", "v0", "v1", "br0", "mv0", "vx0", "d0"}
	subnets    = []string{"10.0.0", "10.0.1", "10.1.0", "192.168.7"}
	routeDsts  = []string{"172.16.0.0/12", "172.16.5.0/24", "10.9.0.0/16", "0.0.0.0/0", "203.0.113.0/24", "198.51.100.7/32"}
	routeTypes = []string{"", "blackhole ", "unreachable ", "prohibit "}
	tables     = []string{"", " table 100", " table 200", " table local"}
)

func oneOf(xs []string) gopter.Gen { return gen.OneConstOf(anys(xs)...) }

func anys(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func linkAdd(name string) string {
	switch name {
	case "v0":
		return "link add v0 type veth peer name v1"
	case "v1":
		return "link add v1 type veth peer name v0"
	case "br0":
		return "link add br0 type bridge"
	case "mv0":
		return "link add mv0 link i0 type macvlan mode bridge"
	case "vx0":
		return "link add vx0 type vxlan id 42 dstport 4789"
	case "d0":
		return "link add d0 type dummy" // no dummy module on this kernel: EOPNOTSUPP
	}
	return fmt.Sprintf("link add %s type ifb", name)
}

func onDev(format string) gopter.Gen {
	return oneOf(devNames).Map(func(d string) string { return fmt.Sprintf(format, d) })
}

func linkLine() gopter.Gen {
	return gen.Weighted([]gen.WeightedGen{
		{Weight: 6, Gen: oneOf(devNames).Map(linkAdd)},
		{Weight: 4, Gen: onDev("link set %s up")},
		{Weight: 1, Gen: onDev("link set %s down")},
		{Weight: 1, Gen: onDev("link set %s mtu 1400")},
		{Weight: 1, Gen: onDev("link set %s mtu 0")},
		{Weight: 1, Gen: onDev("link set %s group 7")},
		{Weight: 1, Gen: onDev("link set %s master br0")},
		{Weight: 1, Gen: onDev("link set %s nomaster")},
		{Weight: 1, Gen: onDev("link set %s address 02:00:00:00:00:42")},
		{Weight: 2, Gen: onDev("link del %s")},
		{Weight: 1, Gen: gen.Const("link del group 7")},
		{Weight: 1, Gen: gen.Const("link set group 7 up")},
		{Weight: 1, Gen: gen.Const("link set i1 name i2")},
	})
}

func addrLine() gopter.Gen {
	return gen.IntRange(0, 1<<20).Map(func(r int) string {
		dev := []string{"i0", "i1", "br0", "v0"}[r%4]
		sub := subnets[(r/4)%len(subnets)]
		host := 1 + (r/16)%4
		plen := []int{24, 24, 16, 32}[(r/64)%4]
		switch (r / 256) % 8 {
		case 0, 1, 2:
			return fmt.Sprintf("addr add %s.%d/%d dev %s", sub, host, plen, dev)
		case 3:
			return fmt.Sprintf("addr add %s.%d/%d dev %s label %s:%d", sub, host, plen, dev, dev, host)
		case 4:
			return fmt.Sprintf("addr add %s.%d/%d broadcast + dev %s", sub, host, plen, dev)
		case 5:
			return fmt.Sprintf("addr del %s.%d/%d dev %s", sub, host, plen, dev)
		case 6:
			return fmt.Sprintf("addr flush dev %s", dev)
		default:
			return fmt.Sprintf("sysctl net.ipv4.conf.%s.promote_secondaries=%d", dev, (r/2048)%2)
		}
	})
}

func routeLine() gopter.Gen {
	return gen.IntRange(0, 1<<20).Map(func(r int) string {
		dst := routeDsts[r%len(routeDsts)]
		typ := routeTypes[(r/8)%len(routeTypes)]
		tbl := tables[(r/32)%len(tables)]
		verb := []string{"add", "add", "replace", "append", "del"}[(r/128)%5]
		var nh string
		if typ == "" {
			nh = []string{" via 10.0.0.5", " dev i0", " dev i1", " via 10.0.1.9 dev i0"}[(r/1024)%4]
		}
		extra := []string{"", " metric 10", " proto static", " scope link", " src 10.0.0.1"}[(r/4096)%5]
		if (r/32768)%7 == 0 {
			return []string{"route flush dev i0", "route flush table 100", "route flush table all proto static", "route flush root 172.16.0.0/12"}[(r/8)%4]
		}
		return strings.TrimSpace(fmt.Sprintf("route %s %s%s%s%s%s", verb, typ, dst, nh, tbl, extra))
	})
}

// scriptGen makes scripts: one device of each kind and an address first,
// then a mix of everything.
func scriptGen(minLen, maxLen int) gopter.Gen {
	line := gen.Weighted([]gen.WeightedGen{
		{Weight: 4, Gen: linkLine()},
		{Weight: 4, Gen: addrLine()},
		{Weight: 3, Gen: routeLine()},
	})
	return gen.SliceOfN(maxLen, line).SuchThat(func(l []string) bool { return len(l) >= minLen }).Map(func(lines []string) string {
		prologue := []string{"link add i0 type ifb", "link add i1 type ifb", "link set i0 up", "addr add 10.0.0.1/24 dev i0",
			"link add v0 type veth peer name v1", "link add br0 type bridge", "link add mv0 link i0 type macvlan mode bridge",
			"link add vx0 type vxlan id 42 dstport 4789"}
		return strings.Join(append(prologue, lines...), "\n") + "\n"
	})
}
