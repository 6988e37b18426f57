package fibtrie_test

import (
	"fmt"

	"github.com/rtnlsim/rtnlsim/fibtrie"
)

// The API the `rtnlsim trie` command drives: routes in, /proc text and
// counters out.
func ExampleFIB() {
	f := fibtrie.New(fibtrie.Linux618())
	ip := func(a, b, c, d uint32) uint32 { return a<<24 | b<<16 | c<<8 | d }
	_ = f.Add(fibtrie.Route{Dst: ip(10, 1, 2, 0), Len: 24, Table: fibtrie.TableMain,
		Type: fibtrie.TypeUnicast, Scope: fibtrie.ScopeLink, Protocol: 3, OIF: 2})
	_ = f.Add(fibtrie.Route{Dst: ip(10, 1, 3, 0), Len: 24, Table: fibtrie.TableMain,
		Type: fibtrie.TypeBlackhole, Protocol: 3})
	err := f.Add(fibtrie.Route{Dst: ip(10, 1, 3, 0), Len: 24, Table: fibtrie.TableMain,
		Type: fibtrie.TypeBlackhole, Protocol: 3})
	fmt.Println("again:", err)
	fmt.Print(f.Render())
	a := f.Lookup(fibtrie.TableMain, ip(10, 1, 2, 9))
	fmt.Println("lookup:", fibtrie.FormatIP(a.Dst), a.Len, f.Counters().Inflates, "inflates")
	// Output:
	// again: file exists
	// Main:
	//   +-- 10.1.2.0/23 2 0 2
	//      |-- 10.1.2.0
	//         /24 link UNICAST
	//      |-- 10.1.3.0
	//         /24 universe BLACKHOLE
	// lookup: 10.1.2.0 24 1 inflates
}
