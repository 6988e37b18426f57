package seed001

import (
	"fmt"
	"math/bits"
	"net/netip"
)

// Layout is how a flush's addresses split into subnets: K subnets of M
// addresses each (the first added is the subnet's primary, the other M-1
// its secondaries), added subnet by subnet. A subnet is a /24, or the
// smallest larger one that holds M hosts: the prefix length changes no
// count the seed's prices use.
type Layout struct {
	K int // subnets
	M int // addresses per subnet
}

// N is the number of addresses.
func (l Layout) N() int { return l.K * l.M }

// S is the number of secondaries per subnet.
func (l Layout) S() int { return l.M - 1 }

func (l Layout) String() string {
	return fmt.Sprintf("%dx%d", l.K, l.M)
}

// hostBits of a subnet holding M hosts: at least 8 (a /24).
func (l Layout) hostBits() int {
	return max(8, bits.Len(uint(l.M+1)))
}

// Addrs returns the addresses in the order they are added: subnet j is
// 10.0.0.0 + j<<hostBits, its addresses .1, .2, ... from its start.
func (l Layout) Addrs() ([]netip.Prefix, error) {
	if l.K < 1 || l.M < 1 {
		return nil, fmt.Errorf("layout %s: want at least one subnet of one address", l)
	}
	h := l.hostBits()
	if l.K > 1<<(24-h) {
		return nil, fmt.Errorf("layout %s: %d subnets of %d addresses do not fit in 10.0.0.0/8", l, l.K, l.M)
	}
	out := make([]netip.Prefix, 0, l.N())
	for j := 0; j < l.K; j++ {
		base := uint32(10)<<24 | uint32(j)<<h
		for i := 0; i < l.M; i++ {
			a := base + 1 + uint32(i)
			out = append(out, netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}), 32-h))
		}
	}
	return out, nil
}
