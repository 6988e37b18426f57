package compare

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Events compares notifications request by request. Within a request's
// window, the sim's own notifications (sent while the request ran) must
// come in the same order on the kernel; the ones the sim marks Deferred
// (linkwatch work, which the kernel runs from a workqueue, urgent ones at
// once and the others when a GETLINK syncs them; IPv6 DAD work, also from
// a workqueue) must be there too, in any order and place. Every kernel event must carry its
// request number (kernel.Options.SyncLinkwatch).
func Events(simEv, kernEv []rtnl.Event) string {
	_, d := FirstEventDiff(simEv, kernEv)
	return d
}

// FirstEventDiff is Events with the number of the first request whose
// notifications differ (0 when none does, or when the kernel's carry no
// request numbers).
func FirstEventDiff(simEv, kernEv []rtnl.Event) (int, string) {
	byReq := func(evs []rtnl.Event) map[int][]rtnl.Event {
		m := map[int][]rtnl.Event{}
		for _, e := range evs {
			m[e.Request] = append(m[e.Request], e)
		}
		return m
	}
	s, k := byReq(simEv), byReq(kernEv)
	if len(k[0]) > 0 {
		return 0, fmt.Sprintf("%d kernel notifications carry no request number (is SyncLinkwatch on?)", len(k[0]))
	}
	last := 0
	for r := range s {
		last = max(last, r)
	}
	for r := range k {
		last = max(last, r)
	}
	for r := 1; r <= last; r++ {
		if at, d := window(s[r], k[r]); d != "" {
			return r, fmt.Sprintf("notifications of request %d differ: %s\nsim:\n%skernel:\n%s", r, d, listing(s[r], at), listing(k[r], at))
		}
	}
	return 0, ""
}

// window compares one request's notifications; at is the index of the
// first kernel notification that differs (or where the shorter side ends).
func window(simW, kernW []rtnl.Event) (at int, msg string) {
	var sync []string
	deferred := map[string]int{}
	for _, e := range simW {
		if e.Deferred {
			deferred[EventLine(e)]++
		} else {
			sync = append(sync, EventLine(e))
		}
	}
	transient := carrierBlips(simW)
	counts := ""
	if len(kernW) != len(simW) {
		counts = fmt.Sprintf("sim sent %d, kernel %d", len(simW), len(kernW))
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
		case transient[got] != "" && deferred[transient[got]] > 0:
			delete(transient, got) // once, before the deferred one it precedes
		default:
			want := "(no more)"
			if next < len(sync) {
				want = sync[next]
			}
			d := fmt.Sprintf("notification %d: sim %s, kernel %s", i+1, want, got)
			if counts != "" {
				d = counts + "; " + d
			}
			return i, d
		}
	}
	left := len(sync) - next
	for _, n := range deferred {
		left += n
	}
	if left > 0 {
		if counts == "" {
			counts = fmt.Sprintf("%d sim notifications missing on the kernel", left)
		}
		return len(kernW), counts
	}
	return 0, ""
}

// carrierBlips are the notifications the kernel may add to a window in
// which a device's carrier came and went: the sim sent the device with
// LOWER_UP (carrier on) and then, deferred, without it (linkwatch's run
// after the carrier went). The kernel's linkwatch work may also have run
// the device while its carrier was on, in between, and sent it then with
// operstate UP (so without NO-CARRIER, which ip shows for an up device
// that is not IFF_RUNNING); whether it did is a race (the linkwatch work against the
// rest of the request). Each such notification, keyed by its EventLine,
// names the EventLine of the deferred notification it must precede.
func carrierBlips(simW []rtnl.Event) map[string]string {
	out := map[string]string{}
	for i, e := range simW {
		l, ok := e.Object.(rtnl.Link)
		if e.Deferred || !ok || e.Type != "RTM_NEWLINK" || e.Family != "link" || !slices.Contains(l.Flags, "LOWER_UP") || l.Operstate == "UP" {
			continue
		}
		for _, d := range simW[i+1:] {
			dl, ok := d.Object.(rtnl.Link)
			if d.Deferred && ok && d.Type == "RTM_NEWLINK" && d.Family == "link" && dl.Ifindex == l.Ifindex && !slices.Contains(dl.Flags, "LOWER_UP") {
				up := l
				up.Operstate = "UP" // IFF_RUNNING now: ip's NO-CARRIER goes
				up.Flags = slices.DeleteFunc(slices.Clone(l.Flags), func(f string) bool { return f == "NO-CARRIER" })
				out[EventLine(rtnl.Event{Type: e.Type, Family: e.Family, Object: up})] = EventLine(d)
				break
			}
		}
	}
	return out
}

// EventLine is one notification on one line: type, family and the object
// as JSON.
func EventLine(e rtnl.Event) string {
	b, err := json.Marshal(e.Object)
	if err != nil {
		b = []byte(err.Error())
	}
	ns := ""
	if e.Netns != "" {
		ns = " netns " + e.Netns
	}
	return e.Type + " " + e.Family + ns + " " + string(b)
}

// listing is a window's notifications one per line, short: links as ip
// prints them; "~" marks the sim's deferred ones. A long window is shown
// around notification at only.
func listing(evs []rtnl.Event, at int) string {
	var b strings.Builder
	from, to := 0, len(evs)
	if len(evs) > 2*listingAround {
		from, to = max(0, at-listingAround), min(len(evs), at+listingAround)
	}
	if from > 0 {
		fmt.Fprintf(&b, "  ... (%d before)\n", from)
	}
	for _, e := range evs[from:to] {
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
	if to < len(evs) {
		fmt.Fprintf(&b, "  ... (%d after)\n", len(evs)-to)
	}
	return b.String()
}

// listingAround is how many notifications a long window's listing shows
// on each side of the first difference.
const listingAround = 12

func deref(p *int) any {
	if p == nil {
		return "-"
	}
	return *p
}
