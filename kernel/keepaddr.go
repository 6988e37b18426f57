//go:build linux

package kernel

import (
	"net/netip"

	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// With keep_addr_on_down a down keeps a device's global IPv6 addresses
// for the next up, which runs DAD for each again. A tentative one is
// waited for like any other (dadPending); a nodad one never shows
// tentative, yet its DAD work still runs after the up and announces it
// (RTM_NEWADDR). Nothing in a dump tells such an address from one added
// nodad while the device was down, which is announced once, at its add,
// and not at the up; so the target notes which nodad addresses a down
// kept, and makes the up that follows wait for their announcements.

// addrKey is an IPv6 address of a device.
type addrKey struct {
	index uint32
	addr  netip.Addr
}

// upDownWatch is what a request that sets devices up or down is checked
// against after it: which devices were up before, and for an up, the
// kept nodad addresses of devices that were down.
type upDownWatch struct {
	up     bool
	wasUp  map[uint32]bool
	owable []addrKey
}

// watchUpDown notes the devices that are up before a request that sets
// devices up (or down).
func (t *Target) watchUpDown(up bool) (*upDownWatch, error) {
	wasUp, err := t.upDevices()
	if err != nil {
		return nil, err
	}
	w := &upDownWatch{up: up, wasUp: wasUp}
	if up {
		for k := range t.keptNodad {
			if !wasUp[k.index] {
				w.owable = append(w.owable, k)
			}
		}
	}
	return w, nil
}

// afterUpDown, after the request: a down notes the nodad addresses (not
// tentative, permanent, neither link-local nor loopback) left on the
// devices it took down, which it kept; an up makes each kept one of a
// device it brought up owed its announcement (announceOwed).
func (t *Target) afterUpDown(w *upDownWatch) error {
	isUp, err := t.upDevices()
	if err != nil {
		return err
	}
	if w.up {
		for _, k := range w.owable {
			if isUp[k.index] {
				delete(t.keptNodad, k)
				if t.announceOwed == nil {
					t.announceOwed = map[addrKey]bool{}
				}
				t.announceOwed[k] = true
			}
		}
		return nil
	}
	addrs, err := t.addrs6()
	if err != nil {
		return err
	}
	for _, a := range addrs {
		flags := uint32(a.flags)
		if f, ok := a.attrs.u32(unix.IFA_FLAGS); ok {
			flags = f
		}
		if w.wasUp[a.index] && !isUp[a.index] &&
			flags&(unix.IFA_F_NODAD|unix.IFA_F_PERMANENT|unix.IFA_F_TENTATIVE) == unix.IFA_F_NODAD|unix.IFA_F_PERMANENT &&
			!a.local.IsLinkLocalUnicast() && !a.local.IsLoopback() {
			if t.keptNodad == nil {
				t.keptNodad = map[addrKey]bool{}
			}
			t.keptNodad[addrKey{a.index, a.local}] = true
		}
	}
	return nil
}

// upDevices is the ifindexes of the devices that are up.
func (t *Target) upDevices() (map[uint32]bool, error) {
	links, _, err := t.links()
	if err != nil {
		return nil, err
	}
	up := map[uint32]bool{}
	for _, l := range links {
		up[l.hdr.Index] = l.hdr.Flags&unix.IFF_UP != 0
	}
	return up, nil
}

// forgetDeletedKept drops from keptNodad the addresses the current
// request deleted (an address of the same name added again later is
// not kept).
func (t *Target) forgetDeletedKept() {
	if len(t.keptNodad) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.events) - 1; i >= 0 && t.events[i].Request == t.reqNo; i-- {
		ev := t.events[i]
		if a, ok := ev.Object.(rtnl.AddrEvent); ok && ev.Type == "RTM_DELADDR" && ev.Family == "inet6" {
			if ip, err := netip.ParseAddr(a.Local); err == nil {
				delete(t.keptNodad, addrKey{uint32(a.Ifindex), ip})
			}
		}
	}
}
