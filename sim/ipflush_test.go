package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runLength is counts of equal neighbours, as "2x3724 4x32376".
func runLength(v []int) string {
	var b strings.Builder
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && v[j] == v[i] {
			j++
		}
		fmt.Fprintf(&b, " %dx%d", j-i, v[i])
		i = j
	}
	return strings.TrimSpace(b.String())
}

// The datagrams ip reads while flushing 2,000 addresses of one /8: on this
// machine (Linux 6.18, iproute2 6.1), strace of `ip addr flush dev i0`
// showed these recvmsg lengths on the dump socket. With promotion: chunks
// of 49, 49, 426 (x4) and 104 addresses of 76 bytes and the DONE, then a
// second round of the 94 addresses the first one's shifting positions
// skipped, then an empty round. Without: three chunks, then the errors of
// the deletes that found their address gone with the primary.
func TestIPFlushReadsAsStrace(t *testing.T) {
	for _, c := range []struct {
		promote bool
		want    string
	}{
		{true, "2x3724 4x32376 1x7904 1x20 1x7144 2x20"},
		{false, "2x3724 1x32376 46x124 1x20 477x124 1x20"},
	} {
		tg, _, err := walkRun("linux-6.18", false, slash8Lines(2000, c.promote))
		require.NoError(t, err)
		n := tg.Netns()
		d := n.ByName("i0")
		var reads []int
		s := &ipFlushSock{in: d.in, n: n, d: d, v4: true, v6: true, reads: &reads}
		require.NoError(t, s.flush(&n.inetCount))
		require.Equal(t, c.want, runLength(reads), "promote=%v", c.promote)
		require.Zero(t, d.in.Len())
	}
}
