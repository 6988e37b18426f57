package fibtrie

import "math/rand/v2"

// BenchPrefixes returns n distinct unicast routes in table main on oif
// 2..17, drawn deterministically with a length mix like a full Internet
// table (about 60% /24, the rest mostly /16../23, a few shorter and
// longer). The bench module uses the same set for the peer libraries.
func BenchPrefixes(n int) []Route {
	rng := rand.New(rand.NewPCG(3, uint64(n)))
	seen := make(map[uint64]bool, n)
	out := make([]Route, 0, n)
	for len(out) < n {
		var l uint8
		switch k := rng.IntN(100); {
		case k < 60:
			l = 24
		case k < 90:
			l = uint8(16 + rng.IntN(8))
		case k < 97:
			l = uint8(8 + rng.IntN(8))
		default:
			l = uint8(25 + rng.IntN(8))
		}
		// keep the first octet in 1..223 like unicast space
		a := uint32(1+rng.IntN(223))<<24 | rng.Uint32()&0xffffff
		dst := a &^ (uint32(1)<<(32-l) - 1)
		if k := uint64(dst)<<8 | uint64(l); !seen[k] {
			seen[k] = true
			out = append(out, Route{Dst: dst, Len: l, Table: TableMain, Type: TypeUnicast,
				Scope: ScopeLink, Protocol: 4, OIF: 2 + len(out)%16})
		}
	}
	return out
}

// BenchAddrs returns n deterministic destinations: half inside the given
// routes (so lookups hit at various depths), half uniformly random.
func BenchAddrs(routes []Route, n int) []uint32 {
	rng := rand.New(rand.NewPCG(4, uint64(n)))
	out := make([]uint32, n)
	for i := range out {
		if i%2 == 0 && len(routes) > 0 {
			r := routes[rng.IntN(len(routes))]
			if r.Len == 0 {
				out[i] = rng.Uint32()
			} else if r.Len < 32 {
				out[i] = r.Dst | rng.Uint32()&(uint32(1)<<(32-r.Len)-1)
			} else {
				out[i] = r.Dst
			}
		} else {
			out[i] = rng.Uint32()
		}
	}
	return out
}
