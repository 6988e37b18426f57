package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every output flag refuses a directory that is not there before any
// work starts: a calibration or a sweep would otherwise lose its result
// at the end. run reads a script that does not parse: checked after
// reading it, the error would be that.
func TestOutputDirectoryCheckedFirst(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	script := filepath.Join("..", "..", "examples", "delete-two.ip")
	for _, args := range [][]string{
		{"run", "--show", "cost", "--plot", filepath.Join(missing, "a.svg"), "-"},
		{"sweep", "seed000", "--n", "10", "-q", "--plot", filepath.Join(missing, "s.svg")},
		{"sweep", "seed000", "--n", "10", "-q", "--csv", filepath.Join(missing, "s.csv")},
		{"merge", "--out", filepath.Join(missing, "m.csv"), "in.csv"},
		{"repro", "001", "-q", "--layouts-plot", filepath.Join(missing, "l.svg")},
		{"measure", "--json", filepath.Join(missing, "m.json"), script},
		{"calibrate", "--out", filepath.Join(missing, "p.json")},
	} {
		out, _, err := runCLI(t, "frob\n", args...)
		require.ErrorContains(t, err, "directory "+missing+" does not exist", args)
		require.Empty(t, out, args)
	}
}
