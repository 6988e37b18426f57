package fibtrie

import (
	"fmt"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// literalSuffix is update_suffix as the kernel runs it: every stride-th
// slot read, the child's slen read where there is one. It returns the
// suffix length, the slots it read and how many of them held a child; it
// changes nothing.
func literalSuffix(tn *node, legacy bool) (slen uint8, visits, children uint64) {
	slen = tn.pos
	stop := min(tn.pos+tn.bits-1, tn.slen)
	if legacy {
		stop = tn.pos + tn.bits - 1
	}
	for i, stride := uint64(0), uint64(2); i < tn.childLength(); i += stride {
		visits++
		n := tn.child[i]
		if n == nil {
			continue
		}
		children++
		if n.slen <= slen {
			continue
		}
		stride <<= n.slen - slen
		slen = n.slen
		i &^= stride - 1
		if slen >= stop {
			break
		}
	}
	return slen, visits, children
}

// eachTnode calls f for every tnode under n.
func eachTnode(n *node, f func(*node)) {
	if n == nil || n.isLeaf() {
		return
	}
	f(n)
	for _, c := range n.child {
		eachTnode(c, f)
	}
}

// TestPropUpdateSuffixCountsAsLiteral: on the tnodes of random tries,
// updateSuffix (which jumps over empty slots, counting them) gives the
// suffix length and the slots read that the kernel's slot-by-slot scan
// gives, under both stop rules; and the scans read both empty slots and
// children.
func TestPropUpdateSuffixCountsAsLiteral(t *testing.T) {
	props := gopter.NewProperties(gopterParams(t, 300))
	var empties, kids uint64
	props.Property("updateSuffix = literal scan", prop.ForAll(func(ops []pOp, legacy bool) string {
		f := New(Linux618())
		f.opts.LegacyUpdateSuffix = legacy
		ref := naive{}
		for _, o := range ops {
			step(f, ref, o)
		}
		msg := ""
		for _, tb := range f.trieTables() {
			eachTnode(tb.t.root(), func(tn *node) {
				if msg != "" {
					return
				}
				slen, visits, children := literalSuffix(tn, legacy)
				before := f.counters
				got := tb.t.updateSuffix(tn)
				dv := f.counters.UpdateSuffixVisits - before.UpdateSuffixVisits
				if got != slen || dv != visits {
					msg = fmt.Sprintf("tnode %s/%d bits %d: slen %d visits %d, literal %d %d",
						FormatIP(tn.key), tn.pos, tn.bits, got, dv, slen, visits)
				}
				empties += visits - children
				kids += children
			})
		}
		return msg
	}, gen.SliceOf(genPOp()), gen.Bool()))
	props.TestingRun(t)
	if empties == 0 || kids == 0 {
		t.Fatalf("scans read %d empty slots and %d children: the property compared too little", empties, kids)
	}
}
