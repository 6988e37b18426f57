package compare

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Events compares notifications request by request. Within a request's
// window, the sim's own notifications (sent while the request ran) must
// come in the same order on the kernel; the ones the sim marks Deferred
// (linkwatch work, which the kernel runs from a workqueue, urgent ones at
// once and the others when a GETLINK syncs them) must be there too, in
// any order and place. Every kernel event must carry its
// request number (kernel.Options.SyncLinkwatch).
func Events(simEv, kernEv []rtnl.Event) string {
	byReq := func(evs []rtnl.Event) map[int][]rtnl.Event {
		m := map[int][]rtnl.Event{}
		for _, e := range evs {
			m[e.Request] = append(m[e.Request], e)
		}
		return m
	}
	s, k := byReq(simEv), byReq(kernEv)
	if len(k[0]) > 0 {
		return fmt.Sprintf("%d kernel notifications carry no request number (is SyncLinkwatch on?)", len(k[0]))
	}
	last := 0
	for r := range s {
		last = max(last, r)
	}
	for r := range k {
		last = max(last, r)
	}
	for r := 1; r <= last; r++ {
		if d := window(s[r], k[r]); d != "" {
			return fmt.Sprintf("notifications of request %d differ: %s\nsim:\n%skernel:\n%s", r, d, listing(s[r]), listing(k[r]))
		}
	}
	return ""
}

func window(simW, kernW []rtnl.Event) string {
	var sync []string
	deferred := map[string]int{}
	for _, e := range simW {
		if e.Deferred {
			deferred[EventLine(e)]++
		} else {
			sync = append(sync, EventLine(e))
		}
	}
	if len(kernW) != len(simW) {
		return fmt.Sprintf("sim sent %d, kernel %d", len(simW), len(kernW))
	}
	// Each kernel notification is the sim's next own one, or one of its
	// deferred ones (which may come anywhere: a request sent as several
	// kernel requests lets linkwatch run between them).
	next := 0
	for i, e := range kernW {
		got := EventLine(e)
		switch {
		case next < len(sync) && got == sync[next]:
			next++
		case deferred[got] > 0:
			deferred[got]--
		default:
			want := "(no more)"
			if next < len(sync) {
				want = sync[next]
			}
			return fmt.Sprintf("notification %d: sim %s, kernel %s", i+1, want, got)
		}
	}
	return ""
}

// EventLine is one notification on one line: type, family and the object
// as JSON.
func EventLine(e rtnl.Event) string {
	b, err := json.Marshal(e.Object)
	if err != nil {
		b = []byte(err.Error())
	}
	return e.Type + " " + e.Family + " " + string(b)
}

// listing is a window's notifications one per line, short: links as ip
// prints them; "~" marks the sim's deferred ones.
func listing(evs []rtnl.Event) string {
	var b strings.Builder
	for _, e := range evs {
		mark := "  "
		if e.Deferred {
			mark = "~ "
		}
		line := EventLine(e)
		if l, ok := e.Object.(rtnl.Link); ok {
			peer := ""
			if l.LinkPeer != nil {
				peer = "@" + *l.LinkPeer
			}
			line = fmt.Sprintf("%s %s %d: %s%s <%s> mtu %d qdisc %s master %s state %s group %s qlen %v %s",
				e.Type, e.Family, l.Ifindex, l.Ifname, peer, strings.Join(l.Flags, ","), l.MTU, l.Qdisc, l.Master,
				l.Operstate, l.Group, deref(l.Txqlen), l.Address)
		}
		b.WriteString(mark + line + "\n")
	}
	return b.String()
}

func deref(p *int) any {
	if p == nil {
		return "-"
	}
	return *p
}
