package differ

import "github.com/rtnlsim/rtnlsim/rtnl"

// lifetimeSlack is how many seconds a kernel's address lifetime may be
// below the model's and still count as equal: the kernel counts them
// down as a run takes wall time (a run that waits for DAD or a bridge's
// forward delay takes tens of seconds on a busy machine), the model
// keeps no clock. Lifetimes the suites write differ by more.
const lifetimeSlack = 120

// alignLifetimes sets each finite lifetime of a kernel address, and each
// IPv6 route's expires, to the model's when it is at most lifetimeSlack
// seconds below it: in the states (by device and address, by route), in
// route get answers and in the notifications (by position).
func alignLifetimes(s, k *side) {
	alignState := func(ss, ks *rtnl.State) {
		alignAddrs(ss.Addrs, ks.Addrs)
		alignRoutes(ss.Routes, ks.Routes)
		for i := range min(len(ss.Netns), len(ks.Netns)) {
			alignAddrs(ss.Netns[i].Addrs, ks.Netns[i].Addrs)
			alignRoutes(ss.Netns[i].Routes, ks.Netns[i].Routes)
		}
	}
	alignState(&s.res.State, &k.res.State)
	for r, ks := range k.at {
		ss := s.at[r]
		alignState(&ss, &ks)
		k.at[r] = ks
	}
	for i := range min(len(s.res.Shown), len(k.res.Shown)) {
		alignState(&s.res.Shown[i].State, &k.res.Shown[i].State)
		// a route get's answer (fibmatch: the route as dumped)
		if sg, kg := s.res.Shown[i].Got, k.res.Shown[i].Got; sg != nil && kg != nil && sameRoute(*sg, *kg) {
			kg.Expires = alignExpires(sg.Expires, kg.Expires)
		}
	}
	for i := range min(len(s.res.Events), len(k.res.Events)) {
		sa, ok1 := s.res.Events[i].Object.(rtnl.AddrEvent)
		ka, ok2 := k.res.Events[i].Object.(rtnl.AddrEvent)
		if ok1 && ok2 && sa.Ifindex == ka.Ifindex && sa.Local == ka.Local && sa.Prefixlen == ka.Prefixlen {
			ka.AddrInfo = alignAddr(sa.AddrInfo, ka.AddrInfo)
			k.res.Events[i].Object = ka
		}
		sr, ok1 := s.res.Events[i].Object.(rtnl.RouteEntry)
		kr, ok2 := k.res.Events[i].Object.(rtnl.RouteEntry)
		if ok1 && ok2 && sameRoute(sr, kr) {
			kr.Expires = alignExpires(sr.Expires, kr.Expires)
			k.res.Events[i].Object = kr
		}
	}
}

// alignRoutes aligns the expires of each kernel route to the model's
// route of the same table, destination, device and metric.
func alignRoutes(s, k []rtnl.RouteEntry) {
	for i := range k {
		for _, sr := range s {
			if sameRoute(sr, k[i]) {
				k[i].Expires = alignExpires(sr.Expires, k[i].Expires)
				break
			}
		}
	}
}

func sameRoute(s, k rtnl.RouteEntry) bool {
	return s.Family == k.Family && s.Table == k.Table && s.Dst == k.Dst && s.Dev == k.Dev && s.Type == k.Type &&
		(s.Metric == nil) == (k.Metric == nil) && (s.Metric == nil || *s.Metric == *k.Metric)
}

// alignExpires returns k, or s when k is at most lifetimeSlack seconds
// below it.
func alignExpires(s, k *int) *int {
	if s == nil || k == nil || *k > *s || *s-*k > lifetimeSlack {
		return k
	}
	v := *s
	return &v
}

func alignAddrs(s, k []rtnl.LinkAddrs) {
	type key struct {
		dev, local string
		plen       int
	}
	sims := map[key]rtnl.AddrInfo{}
	for _, la := range s {
		for _, a := range la.AddrInfo {
			sims[key{la.Ifname, a.Local, a.Prefixlen}] = a
		}
	}
	for i := range k {
		for j, a := range k[i].AddrInfo {
			if sa, ok := sims[key{k[i].Ifname, a.Local, a.Prefixlen}]; ok {
				k[i].AddrInfo[j] = alignAddr(sa, a)
			}
		}
	}
}

// alignAddr returns k with its lifetimes set to s's where close.
func alignAddr(s, k rtnl.AddrInfo) rtnl.AddrInfo {
	close := func(sv, kv *uint32) *uint32 {
		if sv == nil || kv == nil || *kv == 0xffffffff || *sv == 0xffffffff {
			return kv
		}
		if *kv <= *sv && *sv-*kv <= lifetimeSlack {
			v := *sv
			return &v
		}
		return kv
	}
	k.ValidLife = close(s.ValidLife, k.ValidLife)
	k.PreferredLife = close(s.PreferredLife, k.PreferredLife)
	return k
}
