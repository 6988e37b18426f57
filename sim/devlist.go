package sim

// A namespace of a million devices must stay cheap to build, walk and
// tear down, one request at a time, without changing what the model does:
// the device list below and the interned cost records of the requests.

import (
	"iter"
	"slices"

	"github.com/google/btree"

	"github.com/rtnlsim/rtnlsim/cost"
)

// devListDegree is the degree of the device list's B-tree. Devices are
// registered in ascending seq, so every insertion is at the right edge and
// each leaf it leaves behind is split half full. Measured on a million
// devices: the slice this replaced held about 9 bytes a device, degree 32
// about 19 and degree 64 about 19.5 (BenchmarkRegister1M: +10 and +10.5
// bytes a device); a removal costs about the same at either.
const devListDegree = 32

// devList is a namespace's dev_base_head: its devices in registration
// order, which is ascending Device.seq. The kernel links them in a
// list_head (O(1) to append and to unlink); the model keeps them in a
// github.com/google/btree BTreeG ordered by seq, so that registering
// appends, unregistering removes in O(log N) whichever device goes (a
// one-by-one deletion of N devices in any order is O(N log N)), and the
// walks see the devices in list order. A walk must not register or
// unregister devices: those that might take a snapshot (devSnapshot).
type devList = btree.BTreeG[*Device]

func newDevList() *devList {
	return btree.NewG(devListDegree, func(a, b *Device) bool { return a.seq < b.seq })
}

// listDev appends d, whose seq is the namespace's newest, to the list.
func (n *Netns) listDev(d *Device) { n.devs.ReplaceOrInsert(d) }

// unlistDev removes d from the list; the order of the rest is unchanged.
func (n *Netns) unlistDev(d *Device) {
	if x, ok := n.devs.Delete(d); ok && x != d {
		panic("sim: two devices of one namespace share a seq")
	}
}

// listed walks the device list in order (list_for_each_entry over
// dev_base_head).
func (n *Netns) listed() iter.Seq[*Device] {
	return func(yield func(*Device) bool) { n.devs.Ascend(yield) }
}

// listedReverse walks the device list from its tail
// (list_for_each_entry_reverse).
func (n *Netns) listedReverse() iter.Seq[*Device] {
	return func(yield func(*Device) bool) { n.devs.Descend(yield) }
}

// devSnapshot returns the listed devices in order, a copy that walks
// which register or unregister devices can range over.
func (n *Netns) devSnapshot() []*Device {
	out := make([]*Device, 0, n.devs.Len())
	n.devs.Ascend(func(d *Device) bool {
		out = append(out, d)
		return true
	})
	return out
}

// plainWork is the work of a request that unregisters nothing, shared by
// every such request the targets record (read only).
var plainWork = cost.Work{Locked: []cost.StepN{{Step: cost.StepRequest, N: 1}}[:1:1]}

// internWork returns the index in t.works of w, or of an equal cost.Work
// recorded before: a million requests keep a 4-byte index each instead
// of a cost.Work and its step arrays (UnregisterRequestWork makes room
// for ten steps). Recorded works are read only.
func (t *Target) internWork(w cost.Work) uint32 {
	if len(w.Unlocked) == 0 && len(w.Locked) == 1 && w.Locked[0] == plainWork.Locked[0] {
		if t.plainID == 0 {
			t.plainID = t.addWork(plainWork)
		}
		return t.plainID - 1
	}
	key := t.keyBuf[:0]
	put := func(l []cost.StepN) {
		for _, e := range l {
			key = append(key, byte(e.Step))
			for v := uint64(e.N); ; v >>= 7 {
				if v < 0x80 {
					key = append(key, byte(v))
					break
				}
				key = append(key, byte(v)|0x80)
			}
		}
	}
	put(w.Locked)
	key = append(key, 0xff)
	put(w.Unlocked)
	t.keyBuf = key
	if id, ok := t.interned[string(key)]; ok {
		return id
	}
	id := t.addWork(cost.Work{Locked: slices.Clip(slices.Clone(w.Locked)), Unlocked: slices.Clip(slices.Clone(w.Unlocked))}) - 1
	if t.interned == nil {
		t.interned = map[string]uint32{}
	}
	t.interned[string(key)] = id
	return id
}

// addWork appends w to t.works and returns its index plus one.
func (t *Target) addWork(w cost.Work) uint32 {
	if len(t.works) >= lastPart-1 {
		panic("sim: too many distinct request works")
	}
	t.works = append(t.works, w)
	return uint32(len(t.works))
}

// workList is the work of every request recorded, in order; the entries
// share the step arrays of t.works (read only).
func (t *Target) workList() []cost.Work {
	out := make([]cost.Work, len(t.workIDs))
	for i, id := range t.workIDs {
		out[i] = t.works[id&^lastPart]
	}
	return out
}
