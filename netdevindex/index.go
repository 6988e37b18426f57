// Package netdevindex models the netdev index of a network namespace and
// its resumable chunked link dumps, per kernel era.
//
// What the kernel keeps (net/core/dev.c, net/core/rtnetlink.c):
//   - dev_index_head: 256 hlist buckets, bucket = ifindex & 255 (netdev_idx_hash
//     / dev_index_hash); list_netdevice adds a device at the head of its bucket
//     chain (hlist_add_head_rcu); __dev_get_by_index walks that chain.
//   - since 6.5 also net->dev_by_index, an xarray (XA_FLAGS_ALLOC1) from which
//     dev_index_reserve allocates ifindexes with xa_alloc_cyclic(xa_limit_31b,
//     &net->ifindex); lookups by ifindex still go through the hash.
//   - rtnl_dump_ifinfo walked the 256 buckets with a cursor (s_h, s_idx) =
//     (bucket, position in the chain) until the dump was moved onto the xarray
//     (for_each_netdev_dump, cursor = next ifindex) in the February 2024
//     net-next change "rtnetlink: use xarray iterator to implement
//     rtnl_dump_ifinfo()", which is after 6.5: kernels 6.5 to 6.8 allocate
//     through the xarray but still dump the hash.
//
// Table is what a namespace keeps in each era (Options: Before65, Since65,
// Since69); Hash and Xarray are the two structures; Dump resumes a dump
// chunk by chunk the way rtnl_dump_ifinfo does, so that what a dump misses
// or repeats when devices come and go between chunks can be studied. The
// types are generic over the device type D: package sim stores its devices
// in them.
package netdevindex

import (
	"math"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// Kind names the structure an index walks for dumps.
type Kind string

const (
	KindHash   Kind = "hash"   // dev_index_head, 256 buckets
	KindXarray Kind = "xarray" // net->dev_by_index
)

// Hash geometry (NETDEV_HASHBITS, NETDEV_HASHENTRIES) and the largest
// ifindex (dev_index_reserve refuses anything above INT_MAX).
const (
	HashBits    = 8
	HashEntries = 1 << HashBits
	IfindexMax  = math.MaxInt32
)

// Bucket is the bucket of an ifindex: ifindex & (NETDEV_HASHENTRIES-1).
func Bucket(ifindex uint32) int { return int(ifindex & (HashEntries - 1)) }

// Entry is one device returned by a dump.
type Entry[D any] struct {
	Ifindex uint32
	Dev     D
}

// Cursor is where a dump resumes. Xarray dumps use Ifindex (ctx->ifindex:
// the ifindex of the first device not yet returned). Hash dumps use Bucket
// and Pos (cb->args[0] = s_h, cb->args[1] = s_idx: the position in the bucket
// chain, counting filtered-out devices too). The zero cursor starts a dump.
type Cursor struct {
	Ifindex uint32
	Bucket  int
	Pos     int
}

// Index is a netdev index: the structure that maps ifindex to device and the
// one that dumps walk.
type Index[D any] interface {
	// Kind is the structure dumps walk.
	Kind() Kind
	// Add registers d. ifindex 0 asks for one to be allocated; an explicit
	// one is honoured. Errors: EEXIST (ifindex in use), EINVAL (above
	// IfindexMax), EBUSY (no free ifindex, or reserved but not listed).
	Add(ifindex uint32, d D) (uint32, error)
	// Del unregisters the device at ifindex.
	Del(ifindex uint32) (D, bool)
	// Lookup is dev_get_by_index through this index's lookup structure.
	Lookup(ifindex uint32) (D, bool)
	// Len is the number of registered devices.
	Len() int
	// Seq is dev_base_seq: it changes on every Add and Del.
	Seq() uint32
	// DumpChunk is one rtnl_dump_ifinfo call: it resumes at c and returns the
	// devices that pass filter (nil: all) until k devices fit (k is how many
	// the reader's buffer holds; k < 1 counts as 1), and the cursor to resume
	// from. done is true when the walk reached the end.
	DumpChunk(c Cursor, k int, filter func(D) bool) (devs []Entry[D], next Cursor, done bool)
	// Steps counts lookup and dump work since the last ResetSteps: bucket
	// chain entries visited for the hash, xarray node visits for the xarray.
	Steps() uint64
	ResetSteps()
}

// Chunk is what one chunk of a dump returned.
type Chunk[D any] struct {
	Devs   []Entry[D]
	Cursor Cursor // where the next chunk resumes
	Done   bool
	// Interrupted is NLM_F_DUMP_INTR: dev_base_seq differed from its value at
	// the end of the previous chunk (nl_dump_check_consistent), and the
	// chunk carried a device to put the flag on.
	Interrupted bool
}

// Dump is a dump in progress (the netlink_callback state between
// recvmsg calls). The index may change between calls to Next.
type Dump[D any] struct {
	idx     Index[D]
	Filter  func(D) bool
	Cursor  Cursor
	Done    bool
	Chunks  int
	prevSeq uint32
	started bool
}

// NewDump starts a dump of idx.
func NewDump[D any](idx Index[D], filter func(D) bool) *Dump[D] {
	return &Dump[D]{idx: idx, Filter: filter}
}

// Next returns the next chunk of at most k devices. After the dump is done it
// returns an empty, done chunk.
func (d *Dump[D]) Next(k int) Chunk[D] {
	if d.Done {
		return Chunk[D]{Cursor: d.Cursor, Done: true}
	}
	devs, next, done := d.idx.DumpChunk(d.Cursor, k, d.Filter)
	seq := d.idx.Seq()
	ch := Chunk[D]{Devs: devs, Cursor: next, Done: done}
	// Since 6.9 rtnl_dump_ifinfo checks consistency once per call, on the
	// first message of the chunk (nl_dump_check_consistent on
	// nlmsg_hdr(skb)), even when it filled nothing; the closing NLMSG_DONE
	// is then checked against the sequence that call already took, so a
	// change seen by an empty last chunk goes unreported (observed on 6.18:
	// props/TestKernelDumpConsistency). The hash-walking code checked only
	// after each filled device, so there an empty last chunk leaves the
	// check to NLMSG_DONE, which carries the flag (read in the pre-6.9
	// code; no such kernel is at hand to check it against).
	if d.started && seq != d.prevSeq && (len(devs) > 0 || d.idx.Kind() == KindHash) {
		ch.Interrupted = true
	}
	d.prevSeq, d.started = seq, true
	d.Cursor, d.Done = next, done
	d.Chunks++
	return ch
}

// Errors of ifindex reservation, with the kernel's errno values.
var (
	errIfindexExist   error = uapi.EEXIST
	errIfindexInvalid error = uapi.EINVAL
	errIfindexBusy    error = uapi.EBUSY
)

// nextDevBaseSeq is dev_base_seq_inc: it skips 0.
func nextDevBaseSeq(s uint32) uint32 {
	s++
	if s == 0 {
		s++
	}
	return s
}
