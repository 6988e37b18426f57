package repro_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	_ "github.com/rtnlsim/rtnlsim/internal/repro/seeds"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/nscheck"
	"github.com/rtnlsim/rtnlsim/internal/repro"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
)

// TestMain checks that the namespace the tests started in is unchanged
// afterwards (every kernel measurement makes its own).
func TestMain(m *testing.M) { nscheck.Main(m) }

// The --kernel cells at cheap sizes (about 10 s on this machine): every
// row gets a cell, measured ones have a time and the model's time for the
// same size, and the text output names the sizes.
func TestKernelCellsCheap(t *testing.T) {
	testseed.NeedRoot(t)
	o := repro.Options{Kernel: true, KernelRuns: 1, KernelSizes: map[string]int{
		"000/one-by-one": 10, "000/group": 50, "000/16k": 50,
		"001/promote": 50, "001/no-promote": 100,
		"003/delete-one": 30, "003/delete-all": 5,
	}}
	for _, id := range []string{"000", "001", "002"} {
		start := time.Now()
		tb, err := repro.Run(context.Background(), id, o)
		require.NoError(t, err, id)
		measured := 0
		for _, r := range tb.Rows {
			require.NotNil(t, r.Kernel, "seed %s row %q: no kernel cell", id, r.Scenario)
			if r.Kernel.Measured != nil {
				measured++
				require.Positive(t, *r.Kernel.Measured)
				require.NotNil(t, r.Kernel.Model, "seed %s row %q", id, r.Scenario)
				require.NotNil(t, r.Kernel.ErrorPct)
				require.Contains(t, r.Kernel.Profile, "seed-era prices")
				require.Contains(t, r.Kernel.Size, "N=")
			} else {
				require.NotEmpty(t, r.Kernel.Text, "seed %s row %q: kernel cell with neither time nor reason", id, r.Scenario)
			}
		}
		if id != "002" {
			require.Positive(t, measured, id)
		}
		var b bytes.Buffer
		require.NoError(t, repro.WriteText(&b, tb))
		require.Contains(t, b.String(), "kernel size")
		t.Logf("seed %s with kernel cells: %.1f s\n%s", id, time.Since(start).Seconds(), b.String())
	}
}
