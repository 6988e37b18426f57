package fibtrie

import (
	"testing"
	"unsafe"
)

// A plain route pays one pointer for the multipath list: an Alias stays
// in the 64-byte size class.
func TestAliasSize(t *testing.T) {
	if s := unsafe.Sizeof(Alias{}); s > 64 {
		t.Fatalf("Alias is %d bytes, want at most 64 (Route %d)", s, unsafe.Sizeof(Route{}))
	}
}
