package script

import (
	"reflect"
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"link add dummy0 type dummy",
	"ip link add dev d0 index 7 group default mtu 1400 address 02:00:00:00:00:01 master br0 txqlen 10 up type dummy",
	"link add v0 type veth peer name v1",
	"link add mv0 link eth0 type macvlan mode bridge",
	"link add vx0 type vxlan id 42 dstport 4789",
	"link set dev eth0 up mtu 9000 nomaster name wan0 # comment",
	"link set group 5 down",
	"link del eth0",
	"link del group 3",
	"link del list a b c",
	"addr add 10.0.0.1/24 dev eth0 label eth0:1 broadcast + scope link noprefixroute",
	"a add 10.1 peer 10.2/255.255.0.0 dev eth0 brd 10.255.255.255",
	"addr del 2001:db8::1/64 dev eth0",
	"-6 addr flush dev eth0 to fe80::/10 label 'eth0*'",
	"route add 10.1.0.0/16 via 10.0.0.2 dev eth0 table main proto static scope link metric 5 src 10.0.0.1",
	"r add default via fe80::1 dev eth0",
	"route replace blackhole 10.2.0.5/24 table 100",
	"route append local 10.0.0.1 dev eth0 table local",
	"route del unreachable default",
	"route flush table all dev eth0 proto kernel root 10/8",
	"-6 route flush exact ::/0",
	"sysctl net.ipv4.conf.all.promote_secondaries = 1",
	"sysctl -w net.ipv4.conf.eth0.promote_secondaries=0",
	"link add \"d 0\" type dummy",
	"link set eth0 mtux 1500",
	"link set eth0 mtu 1 mtu 2",
	"link add vx0 type vxlan id 16777216",
	"route add 10.0.0.0/33 dev x",
	"addr add 10.0.0.1/24",
	"link set dev \\\n eth0 up",
	"link del dev 'a\\'",
	"sysctl net.ipv4.conf.all.promote_secondaries=2",
	"link add name 'x\"y' type dummy\nlink del list \"'a\" b\\ c",
	"route add 10.9.0.0/16 metric 5 nexthop via 10.0.0.2 dev i0 weight 3 nexthop dev i1 onlink",
	"route add 10.9.0.0/16 via 10.0.0.2 dev i0 onlink mtu lock 1400 realms cosmos/5",
	"route del 10.9.0.0/16 mtu 0 realm 70000",
	"route del default nexthop nexthop via inet 10.0.0.2",
	"route add 10.9.0.0/16 nexthop via 10.0.0.2 metric 5",
	"nexthop add id 1 via 10.0.0.2 dev i0 onlink",
	"nexthop replace id 10 group 1/2,256/3",
	"nexthop add id 3 blackhole",
	"nexthop del id 4294967295",
	"nexthop flush",
	"nexthop add id 5 group 1,0/2 type resilient",
	"route add 10.9.0.0/16 nhid 10 table 100 metric 3",
	"route del 10.9.0.0/16 nhid 0",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		reqs, err := ParseString(src)
		if err != nil {
			if _, ok := err.(*Errors); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
		}
		for _, r := range reqs {
			text := Format(r.Op)
			if strings.ContainsAny(text, "\n") {
				t.Fatalf("line %d %q: Format gave several lines: %q", r.Line, r.Text, text)
			}
			again, err := ParseString(text)
			if err != nil {
				t.Fatalf("line %d %q: Format gave %q, which does not parse: %v", r.Line, r.Text, text, err)
			}
			if len(again) != 1 || !reflect.DeepEqual(again[0].Op, r.Op) {
				t.Fatalf("line %d %q: Format gave %q, which parses to %#v, not %#v", r.Line, r.Text, text, again, r.Op)
			}
		}
	})
}
