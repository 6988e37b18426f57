package seed003

import (
	"testing"
)

// TestSeed003Counters: flushing one device's routes out of the seed's trie.
// With the 4.2-rc3 flush every surviving leaf rescans its parent, so the
// update_suffix visits of one flush grow with N per surviving leaf, i.e.
// as N² per flush (N³ to delete all devices one by one); with the fixed
// flush each tnode is rescanned once, so visits per prefix stay flat and a
// flush is linear in N (quadratic to delete all).
func TestSeed003Counters(t *testing.T) {
	rows := TrieTable(nil)
	t.Log("\n" + FormatTrie(rows))
	per := map[string][]float64{}
	for _, r := range rows {
		if r.Removed != 3 {
			t.Fatalf("%s N=%d: flush removed %d routes, want the device's 3", r.Profile, r.Prefixes, r.Removed)
		}
		per[r.Profile] = append(per[r.Profile], float64(r.UpdateSuffixVisits)/float64(r.Prefixes))
	}
	sizes := []float64{1000, 2500, 5000, 10000}
	old := per["linux-4.2-rc3"]
	for i := 1; i < len(old); i++ {
		// visits per prefix grow in proportion to N (allow the big node's
		// power-of-two size to make it 0.5x..2x of exact proportion)
		growth, want := old[i]/old[0], sizes[i]/sizes[0]
		if growth < want/2 || growth > want*2 {
			t.Errorf("4.2-rc3: visits per prefix grew %.2fx from N=1000 to N=%.0f, want about %.1fx", growth, sizes[i], want)
		}
	}
	for _, p := range []string{"linux-4.2", "linux-6.18"} {
		for i := 1; i < len(per[p]); i++ {
			if g := per[p][i] / per[p][0]; g < 0.5 || g > 2 {
				t.Errorf("%s: visits per prefix changed %.2fx from N=1000 to N=%.0f, want flat", p, g, sizes[i])
			}
		}
	}
}

// TestSeed003DeleteAll: the seed's delete script (every device in turn).
// Doubling N multiplies the summed update_suffix visits by about 8 with
// the 4.2-rc3 flush (cubic) and by about 4 with the fixed one (quadratic).
func TestSeed003DeleteAll(t *testing.T) {
	for _, p := range TrieProfiles() {
		a, b := TrieDeleteAll(250, p.FIB), TrieDeleteAll(500, p.FIB)
		ratio := float64(b) / float64(a)
		t.Logf("%-14s delete all: N=250 %d visits, N=500 %d visits, ratio %.1f", p.Name, a, b, ratio)
		if p.Name == "linux-4.2-rc3" && ratio < 6 {
			t.Errorf("%s: ratio %.1f, want about 8 (cubic)", p.Name, ratio)
		}
		if p.Name != "linux-4.2-rc3" && (ratio < 3 || ratio > 6) {
			t.Errorf("%s: ratio %.1f, want about 4 (quadratic)", p.Name, ratio)
		}
	}
}
