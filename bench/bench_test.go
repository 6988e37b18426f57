package bench

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
	"testing"

	"github.com/gaissmai/bart"
	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/yl2chen/cidranger"
)

var sizes = []int{10_000, 100_000, 1_000_000}

// data for one size, built on first use
type data struct {
	routes []fibtrie.Route
	pfx    []netip.Prefix
	nets   []net.IPNet
	addrs  []netip.Addr
	ips    []net.IP
	fib    *fibtrie.FIB
	bart   *bart.Table[int]
	ranger cidranger.Ranger
}

var (
	mu    sync.Mutex
	cache = map[int]*data{}
)

const nAddrs = 1 << 16

func get(n int) *data {
	mu.Lock()
	defer mu.Unlock()
	if d, ok := cache[n]; ok {
		return d
	}
	d := &data{routes: fibtrie.BenchPrefixes(n)}
	for _, r := range d.routes {
		a := netip.AddrFrom4([4]byte{byte(r.Dst >> 24), byte(r.Dst >> 16), byte(r.Dst >> 8), byte(r.Dst)})
		p := netip.PrefixFrom(a, int(r.Len))
		d.pfx = append(d.pfx, p)
		d.nets = append(d.nets, net.IPNet{IP: net.IP(a.AsSlice()), Mask: net.CIDRMask(int(r.Len), 32)})
	}
	for _, u := range fibtrie.BenchAddrs(d.routes, nAddrs) {
		a := netip.AddrFrom4([4]byte{byte(u >> 24), byte(u >> 16), byte(u >> 8), byte(u)})
		d.addrs = append(d.addrs, a)
		d.ips = append(d.ips, net.IP(a.AsSlice()))
	}
	d.fib = fibtrie.New(fibtrie.Linux618())
	d.bart = new(bart.Table[int])
	d.ranger = cidranger.NewPCTrieRanger()
	for i, r := range d.routes {
		if err := d.fib.Add(r); err != nil {
			panic(err)
		}
		d.bart.Insert(d.pfx[i], i)
		if err := d.ranger.Insert(cidranger.NewBasicRangerEntry(d.nets[i])); err != nil {
			panic(err)
		}
	}
	cache[n] = d
	return d
}

// check that the three agree before timing anything
func agree(b *testing.B, d *data) {
	for i := 0; i < 2000; i++ {
		u := d.addrs[i]
		a := d.fib.Lookup(fibtrie.TableMain, uint32(u.As4()[0])<<24|uint32(u.As4()[1])<<16|uint32(u.As4()[2])<<8|uint32(u.As4()[3]))
		v, ok := d.bart.Lookup(u)
		es, err := d.ranger.ContainingNetworks(d.ips[i])
		if err != nil {
			b.Fatal(err)
		}
		if (a != nil) != ok || ok != (len(es) > 0) {
			b.Fatalf("%v: fibtrie %v bart %v cidranger %d", u, a != nil, ok, len(es))
		}
		if ok {
			last := es[len(es)-1].Network()
			ones, _ := last.Mask.Size()
			if d.pfx[v].Bits() != int(a.Len) || ones != int(a.Len) {
				b.Fatalf("%v: lengths fibtrie %d bart %d cidranger %d", u, a.Len, d.pfx[v].Bits(), ones)
			}
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("fibtrie/%d", n), func(b *testing.B) {
			d := get(n)
			agree(b, d)
			keys := make([]uint32, nAddrs)
			for i, a := range d.addrs {
				x := a.As4()
				keys[i] = uint32(x[0])<<24 | uint32(x[1])<<16 | uint32(x[2])<<8 | uint32(x[3])
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d.fib.Lookup(fibtrie.TableMain, keys[i&(nAddrs-1)])
			}
		})
		b.Run(fmt.Sprintf("bart/%d", n), func(b *testing.B) {
			d := get(n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d.bart.Lookup(d.addrs[i&(nAddrs-1)])
			}
		})
		b.Run(fmt.Sprintf("cidranger/%d", n), func(b *testing.B) {
			d := get(n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// cidranger has no single-result LPM: ContainingNetworks is its lookup
				if _, err := d.ranger.ContainingNetworks(d.ips[i&(nAddrs-1)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInsert: ns per insert into a structure growing to N prefixes
// (rebuilt, untimed, every N inserts).
func BenchmarkInsert(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("fibtrie/%d", n), func(b *testing.B) {
			d := get(n)
			f := fibtrie.New(fibtrie.Linux618())
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%n == 0 && i > 0 {
					b.StopTimer()
					f = fibtrie.New(fibtrie.Linux618())
					b.StartTimer()
				}
				if err := f.Add(d.routes[i%n]); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("bart/%d", n), func(b *testing.B) {
			d := get(n)
			t := new(bart.Table[int])
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%n == 0 && i > 0 {
					b.StopTimer()
					t = new(bart.Table[int])
					b.StartTimer()
				}
				t.Insert(d.pfx[i%n], i)
			}
		})
		b.Run(fmt.Sprintf("cidranger/%d", n), func(b *testing.B) {
			d := get(n)
			r := cidranger.NewPCTrieRanger()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%n == 0 && i > 0 {
					b.StopTimer()
					r = cidranger.NewPCTrieRanger()
					b.StartTimer()
				}
				if err := r.Insert(cidranger.NewBasicRangerEntry(d.nets[i%n])); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
