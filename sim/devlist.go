package sim

// Keeping a namespace of a million devices cheap (issue 5, must-show 4),
// without changing what the model does.

import (
	"slices"
	"sort"

	"github.com/rtnlsim/rtnlsim/cost"
)

// removeDev removes d from devs, a namespace's dev_base_head: devices in
// registration order, so in ascending seq. The kernel unlinks a list_head in
// O(1); the slice finds d by binary search on seq and closes the gap from
// the shorter side, so deleting the oldest or the newest device moves
// nothing else and a one-by-one deletion of N devices in either order is
// O(N log N), not O(N^2). The order of the rest is unchanged. When devs is
// not in seq order (nothing makes it so today) it falls back to a scan.
func removeDev(devs []*Device, d *Device) []*Device {
	i := sort.Search(len(devs), func(i int) bool { return devs[i].seq >= d.seq })
	if i == len(devs) || devs[i] != d {
		i = slices.Index(devs, d)
		if i < 0 {
			return devs
		}
	}
	if i < len(devs)/2 {
		copy(devs[1:i+1], devs[:i])
		devs[0] = nil // let the collector have d
		return devs[1:]
	}
	copy(devs[i:], devs[i+1:])
	devs[len(devs)-1] = nil
	return devs[:len(devs)-1]
}

// plainWork is the work of a request that unregisters nothing, shared by
// every such request the targets record (read only).
var plainWork = cost.Work{Locked: []cost.StepN{{Step: cost.StepRequest, N: 1}}[:1:1]}

// internWork returns w, or an equal cost.Work recorded before whose step
// arrays it then shares: a million requests keep a 48-byte cost.Work each
// instead of their own step arrays (UnregisterRequestWork makes room for
// ten steps). Recorded works are read only.
func (t *Target) internWork(w cost.Work) cost.Work {
	if len(w.Unlocked) == 0 && len(w.Locked) == 1 && w.Locked[0] == plainWork.Locked[0] {
		return plainWork
	}
	key := make([]byte, 0, 10*(len(w.Locked)+len(w.Unlocked))+1)
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
	if v, ok := t.interned[string(key)]; ok {
		return v
	}
	w = cost.Work{Locked: slices.Clip(slices.Clone(w.Locked)), Unlocked: slices.Clip(slices.Clone(w.Unlocked))}
	if t.interned == nil {
		t.interned = map[string]cost.Work{}
	}
	t.interned[string(key)] = w
	return w
}
