package fibtrie

import (
	"testing"
	"unsafe"
)

// A plain route pays one pointer for its rare parts (Extra: the
// multipath list, the MTU, the realms; onlink sits in padding): a Route
// stays 48 bytes and an Alias in the 64-byte size class.
func TestAliasSize(t *testing.T) {
	if s := unsafe.Sizeof(Route{}); s > 48 {
		t.Fatalf("Route is %d bytes, want at most 48", s)
	}
	if s := unsafe.Sizeof(Alias{}); s > 64 {
		t.Fatalf("Alias is %d bytes, want at most 64 (Route %d)", s, unsafe.Sizeof(Route{}))
	}
}
