package sim

// Peer namespace ids (net/core/net_namespace.c): every namespace keeps an
// idr, netns_ids, from an id to a peer namespace. RTM_NEWNSID
// (rtnl_net_newid, `ip netns set NAME ID`) assigns one: the requested id,
// or the lowest free one for -1 (alloc_netid: idr_alloc(min, max)); a
// peer that already has an id, or an id in use, is EEXIST.
// get_net_ns_by_id is idr_find. __peernet2id (peer to id) is
// idr_for_each in id order until the peer's entry: it visits every entry
// with a smaller id. peernet2id_alloc allocates the lowest free id when
// the peer has none, also when the peer is the namespace itself (a veth
// filled by rtnl_fill_link_netnsid from a reader whose namespace is the
// veth's link net).

import (
	"fmt"
	"sort"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// PeerIDs is one namespace's netns_ids.
type PeerIDs struct {
	ids  []int32          // assigned ids, ascending
	byID map[int32]*Netns // id -> peer
}

// NewPeerIDs returns an empty table.
func NewPeerIDs() *PeerIDs { return &PeerIDs{byID: map[int32]*Netns{}} }

// Len is the number of ids assigned.
func (p *PeerIDs) Len() int { return len(p.ids) }

// Assign is rtnl_net_newid: reqid >= 0 asks for that id, -1 for the
// lowest free one. It returns the id, or EEXIST when peer already has one
// or reqid is taken, EINVAL for reqid < -1.
func (p *PeerIDs) Assign(peer *Netns, reqid int32) (int32, error) {
	if reqid < -1 {
		return 0, fmt.Errorf("nsid %d: %w", reqid, uapi.EINVAL)
	}
	if id, _ := p.IDOf(peer); id >= 0 {
		return 0, fmt.Errorf("peer netns already has a nsid assigned (%d): %w", id, uapi.EEXIST)
	}
	if reqid >= 0 {
		if _, used := p.byID[reqid]; used {
			return 0, fmt.Errorf("the specified nsid %d is already used: %w", reqid, uapi.EEXIST)
		}
		p.insert(reqid, peer)
		return reqid, nil
	}
	return p.allocLowest(peer), nil
}

func (p *PeerIDs) allocLowest(peer *Netns) int32 {
	id := int32(0)
	for _, x := range p.ids {
		if x != id {
			break
		}
		id++
	}
	p.insert(id, peer)
	return id
}

func (p *PeerIDs) insert(id int32, peer *Netns) {
	i := sort.Search(len(p.ids), func(i int) bool { return p.ids[i] >= id })
	p.ids = append(p.ids, 0)
	copy(p.ids[i+1:], p.ids[i:])
	p.ids[i] = id
	p.byID[id] = peer
}

// Lookup is get_net_ns_by_id: the peer with id, nil when none.
func (p *PeerIDs) Lookup(id int32) *Netns {
	if id < 0 {
		return nil
	}
	return p.byID[id]
}

// IDOf is __peernet2id: peer's id (-1, NETNSA_NSID_NOT_ASSIGNED, when it
// has none) and the entries idr_for_each visited to find it out.
func (p *PeerIDs) IDOf(peer *Netns) (id int32, visited int) {
	for _, x := range p.ids {
		visited++
		if p.byID[x] == peer {
			return x, visited
		}
	}
	return -1, visited
}

// Alloc is peernet2id_alloc: peer's id, allocating the lowest free one when
// it has none, and the entries visited looking for it.
func (p *PeerIDs) Alloc(peer *Netns) (id int32, visited int) {
	if id, visited = p.IDOf(peer); id >= 0 {
		return id, visited
	}
	return p.allocLowest(peer), visited
}
