package seed003

import (
	"context"
	"testing"

	"github.com/rtnlsim/rtnlsim/internal/repro"
	"github.com/rtnlsim/rtnlsim/internal/repro/seed001"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/stretchr/testify/require"
)

// Seed 003's kernel scenarios at cheap sizes, without its 30-s model table.
func TestKernelSeed003Scenarios(t *testing.T) {
	testseed.NeedRoot(t)
	o := repro.Options{Kernel: true, KernelRuns: 1}
	for _, kc := range []repro.KernelCase{
		{Key: "003/delete-one", N: 30, Size: func(n int) string { return "one of N" }, Scenario: seed003DeleteOne},
		{Key: "003/delete-all", N: 5, Size: func(n int) string { return "all N" }, Scenario: seed003DeleteAll},
	} {
		k, err := repro.MeasureKernel(context.Background(), o, kc, seed001.FlushPrices, "test prices")
		require.NoError(t, err, kc.Key)
		require.NotNil(t, k.Measured)
		require.NotNil(t, k.Model)
		require.Positive(t, *k.Measured)
		t.Logf("%s: kernel %.3f s, model %.3f s", kc.Key, *k.Measured, *k.Model)
	}
}
