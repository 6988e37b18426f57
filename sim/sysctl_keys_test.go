package sim

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/script"
)

// The sim takes every net.ipv4.conf key the language parses, and no other.
func TestStoredConfKeysAreTheLanguages(t *testing.T) {
	require.ElementsMatch(t, slices.Collect(maps.Keys(script.ConfKeys)), storedConfKeys)
}

// The sim takes every net.ipv6.conf key the language parses, and no other.
func TestStoredConf6KeysAreTheLanguages(t *testing.T) {
	require.ElementsMatch(t, slices.Collect(maps.Keys(script.Conf6Keys)), sysctlKeys6)
}
