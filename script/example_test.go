package script_test

import (
	"errors"
	"fmt"

	"github.com/rtnlsim/rtnlsim/script"
)

// Each line becomes one rtnl.Request: its line number, its text, and the
// Op, a value of one of rtnl's request types (Format writes it back in
// canonical form, abbreviations spelled out). Bad lines are reported all
// together, each with its number, as a *script.Errors beside the requests
// of the good lines; nothing is skipped silently.
func ExampleParseString() {
	reqs, err := script.ParseString(`# comment lines and blank lines make no request
ip link add d0 type ifb
l s d0 up mtu 9000
addr add 10.1/16 dev d0
route add default via 10.1.0.254 \
    metric 10
link del list d0
`)
	if err != nil {
		panic(err)
	}
	for _, r := range reqs {
		fmt.Printf("%d %T: %s\n", r.Line, r.Op, script.Format(r.Op))
	}

	reqs, err = script.ParseString("link add d0 type ifb\nlink add d1 type tun\nlink set d0 mtu\n")
	fmt.Println(len(reqs), "good request(s)")
	var bad *script.Errors // Parse returns a *Errors
	if errors.As(err, &bad) {
		for _, e := range *bad {
			fmt.Printf("line %d, at %q: %s\n", e.Line, e.Word, e.Msg)
		}
	}
	// Output:
	// 2 rtnl.LinkAdd: link add name d0 type ifb
	// 3 rtnl.LinkSet: link set dev d0 mtu 9000 up
	// 4 rtnl.AddrAdd: addr add 10.1.0.0/16 dev d0
	// 5 rtnl.RouteAdd: route add default via 10.1.0.254 metric 10
	// 7 rtnl.LinkDelList: link del list d0
	// 1 good request(s)
	// line 2, at "tun": unknown link type ([ifb dummy veth bridge macvlan vxlan])
	// line 3, at "mtu": missing argument
}
