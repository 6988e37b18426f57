package xarray

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
	"github.com/leanovate/gopter/gen"

	"github.com/rtnlsim/rtnlsim/internal/testseed"
)

// The stateful test drives an XArray[int] and a plain map model with the same
// random command sequences and compares every result, the tree invariants and
// the tree height after every command.

type xaExpect struct {
	id      uint32
	v       int
	ok      bool
	err     error
	wrapped bool
}

type xaModel struct {
	flags   Flags
	cyc     Limit // the range AllocCyclic uses in this run (small, so it wraps)
	vals    map[uint32]int
	resv    map[uint32]bool
	next    uint32
	wrapped bool
	exp     xaExpect // what the last command should have returned
}

func (m *xaModel) String() string {
	return fmt.Sprintf("flags=%d cyc=[%d,%d] next=%d vals=%v resv=%v", m.flags, m.cyc.Min, m.cyc.Max, m.next, m.vals, m.resv)
}

func (m *xaModel) clone() *xaModel {
	c := *m
	c.vals = make(map[uint32]int, len(m.vals))
	for k, v := range m.vals {
		c.vals[k] = v
	}
	c.resv = make(map[uint32]bool, len(m.resv))
	for k := range m.resv {
		c.resv[k] = true
	}
	c.exp = xaExpect{}
	return &c
}

func (m *xaModel) zeroBusy() bool { return m.flags&FlagZeroBusy != 0 }

func (m *xaModel) occupied(i uint32) bool {
	_, v := m.vals[i]
	return v || m.resv[i] || (i == 0 && m.zeroBusy())
}

// firstFree scans [min, max] for the lowest index that is not occupied.
func (m *xaModel) firstFree(min, max uint32) (uint32, bool) {
	if min > max {
		return 0, false
	}
	for i := uint64(min); i <= uint64(max); i++ {
		if !m.occupied(uint32(i)) {
			return uint32(i), true
		}
	}
	return 0, false
}

func (m *xaModel) put(i uint32, v int, reserved bool) {
	if reserved {
		delete(m.vals, i)
		m.resv[i] = true
	} else {
		delete(m.resv, i)
		m.vals[i] = v
	}
}

// allocCyclic follows the contract of xa_alloc_cyclic as documented in
// lib/xarray.c, over the map.
func (m *xaModel) allocCyclic(v int, reserved bool) xaExpect {
	if m.flags&FlagAlloc == 0 {
		return xaExpect{err: ErrInvalid}
	}
	lim := m.cyc
	from := lim.Min
	if m.next > from {
		from = m.next
	}
	id, ok := m.firstFree(from, lim.Max)
	wrapped := false
	if ok && m.wrapped {
		m.wrapped = false
		wrapped = true
	}
	if !ok && from > lim.Min {
		id, ok = m.firstFree(lim.Min, lim.Max)
		wrapped = ok
	}
	if !ok {
		return xaExpect{err: ErrBusy}
	}
	m.put(id, v, reserved)
	m.next = id + 1
	if m.next == 0 {
		m.wrapped = true
	}
	return xaExpect{id: id, ok: true, wrapped: wrapped}
}

func (m *xaModel) maxOccupied() (uint32, bool) {
	var max uint32
	any := false
	for k := range m.vals {
		if !any || k > max {
			max, any = k, true
		}
	}
	for k := range m.resv {
		if !any || k > max {
			max, any = k, true
		}
	}
	return max, any
}

type xaResult struct {
	xaExpect
	height int
	length int
	inv    error
}

type xaCmd struct {
	op       string
	idx      uint32
	v        int
	from, to uint32
}

func (c xaCmd) String() string {
	switch c.op {
	case "store", "insert":
		return fmt.Sprintf("%s(%d,%d)", c.op, c.idx, c.v)
	case "alloc", "allocres":
		return fmt.Sprintf("%s([%d,%d],%d)", c.op, c.from, c.to, c.v)
	case "cyclic", "cyclicres":
		return fmt.Sprintf("%s(%d)", c.op, c.v)
	case "find":
		return fmt.Sprintf("find(%d,%d)", c.from, c.to)
	}
	return fmt.Sprintf("%s(%d)", c.op, c.idx)
}

func (c xaCmd) Run(sut commands.SystemUnderTest) commands.Result {
	xa := sut.(*XArray[int])
	var r xaResult
	switch c.op {
	case "store":
		old, had, err := xa.Store(c.idx, c.v)
		r.v, r.ok, r.err = old, had, err
	case "insert":
		r.err = xa.Insert(c.idx, c.v)
	case "reserve":
		r.err = xa.Reserve(c.idx)
	case "erase":
		r.v, r.ok = xa.Erase(c.idx)
	case "load":
		r.v, r.ok = xa.Load(c.idx)
	case "alloc":
		r.id, r.err = xa.Alloc(c.v, Limit{c.from, c.to})
		r.ok = r.err == nil
	case "allocres":
		r.id, r.err = xa.AllocReserved(Limit{c.from, c.to})
		r.ok = r.err == nil
	case "cyclic", "cyclicres":
		// The cursor lives in the model's run: keep it in the SUT wrapper.
		panic("cyclic commands are run through cycSUT")
	case "find":
		r.id, r.v, r.ok = xa.Find(c.from, c.to)
	case "findafter":
		r.id, r.v, r.ok = xa.FindAfter(c.idx, math.MaxUint32)
	case "fill":
		for i := fillBase(c.idx); i <= fillBase(c.idx)+chunkMask; i++ {
			if i != 0 || xa.flags&FlagZeroBusy == 0 {
				xa.Store(uint32(i), c.v)
			}
		}
	}
	r.height, r.length, r.inv = xa.Height(), xa.Len(), xa.checkInvariants()
	return r
}

func (c xaCmd) NextState(s commands.State) commands.State {
	m := s.(*xaModel).clone()
	switch c.op {
	case "store":
		if c.idx == 0 && m.zeroBusy() {
			m.exp = xaExpect{err: ErrInvalid}
			break
		}
		old, had := m.vals[c.idx]
		m.exp = xaExpect{v: old, ok: had}
		m.put(c.idx, c.v, false)
	case "insert", "reserve":
		if m.occupied(c.idx) {
			m.exp = xaExpect{err: ErrBusy}
			break
		}
		m.put(c.idx, c.v, c.op == "reserve")
	case "erase":
		if c.idx == 0 && m.zeroBusy() {
			break
		}
		old, had := m.vals[c.idx]
		m.exp = xaExpect{v: old, ok: had}
		delete(m.vals, c.idx)
		delete(m.resv, c.idx)
	case "fill":
		for i := fillBase(c.idx); i <= fillBase(c.idx)+chunkMask; i++ {
			if i != 0 || !m.zeroBusy() {
				m.put(uint32(i), c.v, false)
			}
		}
	case "load":
		v, ok := m.vals[c.idx]
		m.exp = xaExpect{v: v, ok: ok}
	case "alloc", "allocres":
		if m.flags&FlagAlloc == 0 {
			m.exp = xaExpect{err: ErrInvalid}
			break
		}
		id, ok := m.firstFree(c.from, c.to)
		if !ok {
			m.exp = xaExpect{err: ErrBusy}
			break
		}
		m.put(id, c.v, c.op == "allocres")
		m.exp = xaExpect{id: id, ok: true}
	case "cyclic", "cyclicres":
		m.exp = m.allocCyclic(c.v, c.op == "cyclicres")
	case "find", "findafter":
		from, to := c.from, c.to
		if c.op == "findafter" {
			if c.idx == math.MaxUint32 {
				break
			}
			from, to = c.idx+1, math.MaxUint32
		}
		keys := make([]uint32, 0, len(m.vals))
		for k := range m.vals {
			if k >= from && k <= to {
				keys = append(keys, k)
			}
		}
		if len(keys) > 0 {
			sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
			m.exp = xaExpect{id: keys[0], v: m.vals[keys[0]], ok: true}
		}
	}
	return m
}

func (c xaCmd) PreCondition(commands.State) bool { return true }

func (c xaCmd) PostCondition(s commands.State, res commands.Result) *gopter.PropResult {
	m := s.(*xaModel)
	r := res.(xaResult)
	if r.inv != nil {
		return gopter.NewPropResult(false, "invariant: "+r.inv.Error())
	}
	if !errors.Is(r.err, m.exp.err) || (r.err == nil && m.exp.err != nil) {
		return gopter.NewPropResult(false, fmt.Sprintf("%v: err %v, want %v", c, r.err, m.exp.err))
	}
	if r.ok != m.exp.ok || (r.ok && (r.id != m.exp.id || r.v != m.exp.v)) || r.wrapped != m.exp.wrapped {
		return gopter.NewPropResult(false, fmt.Sprintf("%v: got id=%d v=%d ok=%v wrapped=%v, want id=%d v=%d ok=%v wrapped=%v",
			c, r.id, r.v, r.ok, r.wrapped, m.exp.id, m.exp.v, m.exp.ok, m.exp.wrapped))
	}
	if r.length != len(m.vals) {
		return gopter.NewPropResult(false, fmt.Sprintf("%v: Len %d, model %d", c, r.length, len(m.vals)))
	}
	max, any := m.maxOccupied()
	switch {
	case !any:
		if r.height != 0 {
			return gopter.NewPropResult(false, fmt.Sprintf("%v: empty but height %d", c, r.height))
		}
	case max == 0:
		// Index 0 alone lives in the head (height 0), or in a leaf when it was
		// first reserved (the kernel does not store XA_ZERO_ENTRY in the head).
		if r.height > 1 {
			return gopter.NewPropResult(false, fmt.Sprintf("%v: only index 0 but height %d", c, r.height))
		}
	default:
		if want := minHeight(uint64(max)); r.height != want {
			return gopter.NewPropResult(false, fmt.Sprintf("%v: max index %d, height %d, want %d", c, max, r.height, want))
		}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

// cycSUT carries the AllocCyclic cursor (net->ifindex in the kernel) beside
// the array.
type cycSUT struct {
	xa   *XArray[int]
	cyc  Limit
	next uint32
}

type cycCmd struct{ xaCmd }

func (c cycCmd) Run(sut commands.SystemUnderTest) commands.Result {
	s := sut.(*cycSUT)
	var r xaResult
	if c.op == "cyclic" {
		r.id, r.wrapped, r.err = s.xa.AllocCyclic(c.v, s.cyc, &s.next)
	} else {
		r.id, r.wrapped, r.err = s.xa.AllocCyclicReserved(s.cyc, &s.next)
	}
	r.ok = r.err == nil
	r.height, r.length, r.inv = s.xa.Height(), s.xa.Len(), s.xa.checkInvariants()
	return r
}

type plainCmd struct{ xaCmd }

func (c plainCmd) Run(sut commands.SystemUnderTest) commands.Result {
	return c.xaCmd.Run(sut.(*cycSUT).xa)
}

var boundaries = []uint32{0, 1, 2, 62, 63, 64, 65, 127, 128, 4095, 4096, 4097, 262143, 262144,
	1 << 24, 1<<30 - 1, 1 << 30, math.MaxInt32, math.MaxInt32 + 1, math.MaxUint32 - 1, math.MaxUint32}

func genIndex(m *xaModel) gopter.Gen {
	cands := append([]interface{}{}, toIfaces(boundaries)...)
	for k := range m.vals {
		cands = append(cands, k)
	}
	for k := range m.resv {
		cands = append(cands, k)
	}
	cands = append(cands, m.cyc.Min, m.cyc.Max, m.next)
	sort.Slice(cands, func(i, j int) bool { return cands[i].(uint32) < cands[j].(uint32) })
	return gen.Weighted([]gen.WeightedGen{
		{Weight: 5, Gen: gen.UInt32Range(0, 140)},
		{Weight: 4, Gen: gen.OneConstOf(cands...)},
		{Weight: 1, Gen: gen.UInt32Range(m.cyc.Min, m.cyc.Max)},
		{Weight: 1, Gen: gen.UInt32()},
	})
}

// fillBase is the first index of the leaf that holds i.
func fillBase(i uint32) uint64 { return uint64(i) &^ chunkMask }

func toIfaces(xs []uint32) []interface{} {
	out := make([]interface{}, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func xarrayCommands() commands.Commands {
	return &commands.ProtoCommands{
		NewSystemUnderTestFunc: func(st commands.State) commands.SystemUnderTest {
			m := st.(*xaModel)
			return &cycSUT{xa: New[int](m.flags), cyc: m.cyc}
		},
		InitialStateGen: gopter.CombineGens(
			gen.OneConstOf(Flags(0), FlagAlloc, FlagsAlloc1),
			gen.OneConstOf(Limit{0, 20}, Limit{1, 9}, Limit{3, 70}, Limit{60, 200},
				Limit{math.MaxUint32 - 12, math.MaxUint32}, Limit{1, 1}),
		).Map(func(vs []interface{}) *xaModel {
			return &xaModel{flags: vs[0].(Flags), cyc: vs[1].(Limit),
				vals: map[uint32]int{}, resv: map[uint32]bool{}}
		}),
		GenCommandFunc: func(st commands.State) gopter.Gen {
			m := st.(*xaModel)
			idx := genIndex(m)
			val := gen.IntRange(1, 1000)
			mk := func(op string) gopter.Gen {
				return gopter.CombineGens(idx, val, idx, idx).Map(func(vs []interface{}) commands.Command {
					c := xaCmd{op: op, idx: vs[0].(uint32), v: vs[1].(int), from: vs[2].(uint32), to: vs[3].(uint32)}
					if op == "alloc" || op == "allocres" || op == "find" {
						if c.from > c.to && c.idx%4 != 0 { // mostly well-formed ranges
							c.from, c.to = c.to, c.from
						}
					}
					if op == "cyclic" || op == "cyclicres" {
						return cycCmd{c}
					}
					return plainCmd{c}
				})
			}
			return gen.Weighted([]gen.WeightedGen{
				{Weight: 5, Gen: mk("store")},
				{Weight: 3, Gen: mk("insert")},
				{Weight: 2, Gen: mk("reserve")},
				{Weight: 6, Gen: mk("erase")},
				{Weight: 2, Gen: mk("load")},
				{Weight: 2, Gen: mk("alloc")},
				{Weight: 1, Gen: mk("allocres")},
				{Weight: 5, Gen: mk("cyclic")},
				{Weight: 2, Gen: mk("cyclicres")},
				{Weight: 2, Gen: mk("find")},
				{Weight: 1, Gen: mk("findafter")},
				{Weight: 1, Gen: mk("fill")},
			})
		},
	}
}

func TestXArrayAgainstMapModel(t *testing.T) {
	seed := testseed.Get(t, 20260530)
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = 300
	params.MaxSize = 120
	if testing.Short() {
		params.MinSuccessfulTests = 60
	}
	props := gopter.NewProperties(params)
	props.Property("xarray matches a map model", commands.Prop(xarrayCommands()))
	props.TestingRun(t)
}
