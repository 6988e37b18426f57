package props

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/differ"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

// lineGen draws one script line from r and tells hit the branches it
// took.
type lineGen func(r *rand.Rand, hit func(string)) string

// lineScriptGen makes scripts of prologue and minLen..maxLen lines of
// line, each drawn from a PCG stream of its own gopter value (v, v>>shift).
func lineScriptGen(prologue []string, minLen, maxLen int, shift uint, line lineGen) gopter.Gen {
	one := gen.UInt64().Map(func(v uint64) string {
		return line(rand.New(rand.NewPCG(v, v>>shift)), func(string) {})
	})
	return gen.SliceOfN(maxLen, one).SuchThat(func(l []string) bool { return len(l) >= minLen }).Map(func(l []string) []string {
		return append(append([]string(nil), prologue...), l...)
	})
}

// drawLines draws n lines of line from the test's seed (stream picks the
// PCG stream) and returns the branches taken and the lines drawn, for
// the branch tests.
func drawLines(t *testing.T, stream uint64, n int, line lineGen) (map[string]int, map[string]bool) {
	hits := map[string]int{}
	lines := map[string]bool{}
	r := rand.New(rand.NewPCG(uint64(testseed.Get(t, 20261202)), stream))
	for range n {
		lines[line(r, func(b string) { hits[b]++ })] = true
	}
	return hits, lines
}

// requireDrawn fails unless every branch was taken, every line of the
// pools was drawn, and every line drawn parses (the branch tests).
func requireDrawn(t *testing.T, hits map[string]int, lines map[string]bool, branches []string, pools ...[]string) {
	t.Helper()
	for _, b := range branches {
		require.Positive(t, hits[b], "branch %q never taken", b)
	}
	for _, pool := range pools {
		for _, l := range pool {
			require.True(t, lines[l], "line %q never drawn", l)
		}
	}
	for l := range lines {
		_, err := script.ParseString(l + "\n")
		require.NoError(t, err, "generated line %q does not parse", l)
	}
}

// diffScript parses lines and runs them on both targets as `rtnlsim
// diff` does, comparing what selects. fail wraps a message with the
// script; msg is the failure ("" when the script ran).
func diffScript(lines []string, what differ.What) (reqs []rtnl.Request, out differ.Outcome, fail func(string) string, msg string) {
	src := strings.Join(lines, "\n") + "\n"
	fail = func(m string) string { return fmt.Sprintf("%s\nscript:\n%s", m, src) }
	reqs, err := script.ParseString(src)
	if err != nil {
		return nil, out, fail, fail("generated script does not parse: " + err.Error())
	}
	out, err = differ.Run(context.Background(), reqs, sim.Options{Seed: 1}, what)
	if err != nil {
		return nil, out, fail, fail(err.Error())
	}
	return reqs, out, fail, ""
}

// gopterParams takes the seed (internal/testseed: fixed by default,
// RTNLSIM_SEED replays or explores) and sets the number of cases.
func gopterParams(t *testing.T, n int) *gopter.TestParameters {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(testseed.Get(t, 20261130))
	p.MinSuccessfulTests = n
	return p
}

// report runs the properties and fails the test on any failure.
func report(t *testing.T, props *gopter.Properties) {
	t.Helper()
	props.TestingRun(t, gopter.ConsoleReporter(false))
}

// envInt is the integer in the environment variable name, def when it is
// unset; the test fails when it is not a number >= least.
func envInt(t *testing.T, name string, def, least int) int {
	t.Helper()
	return testseed.EnvInt(t, name, def, least)
}

// runBatch runs one on every script of a gopter case's batch, each in its
// own goroutine (each kernel target has its own namespace), and returns
// the results in the batch's order.
func runBatch[T any](batch [][]string, one func(lines []string) T) []T {
	out := make([]T, len(batch))
	var wg sync.WaitGroup
	for i, lines := range batch {
		wg.Go(func() { out[i] = one(lines) })
	}
	wg.Wait()
	return out
}

// shrinkLines removes the lines of a failing script one at a time, last
// first, keeping each removal after which fails still reports a failure
// (non-empty), and returns the shrunk script and its last failure.
func shrinkLines(lines []string, failure string, fails func(lines []string) string) ([]string, string) {
	for i := len(lines) - 1; i >= 0; i-- {
		try := append(append([]string(nil), lines[:i]...), lines[i+1:]...)
		if f := fails(try); f != "" {
			lines, failure = try, f
		}
	}
	return lines, failure
}

// writeScript writes a script, one line each, to a new file made by
// os.CreateTemp("", pattern) (gopter wraps long label lines; the file
// replays as it is) and returns its name, "" when it could not.
func writeScript(pattern string, lines []string) string {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return ""
	}
	_, _ = f.WriteString(strings.Join(lines, "\n") + "\n")
	_ = f.Close()
	return f.Name()
}

// replayLines is the script a replay test runs: the lines of the file
// named by the environment variable name. The test is skipped without
// it, and needs the kernel.
func replayLines(t *testing.T, name string) []string {
	t.Helper()
	file := os.Getenv(name)
	if file == "" {
		t.Skipf("set %s=FILE to replay a script on both targets", name)
	}
	testseed.NeedKernel(t)
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(src), "\n"), "\n")
}

// diffProperty runs a differential property over batches of generated
// scripts: each script goes through check (with the map of what it saw,
// under mu), a failing one is shrunk line by line and written to a file
// named by pattern that `rtnlsim diff` replays. envBatches sets the
// number of batches (def by default). Each key of want must have been
// seen at least once: what the scripts are there to reach.
func diffProperty(t *testing.T, name, envBatches string, def int, scripts gopter.Gen, pattern string,
	check func(lines []string, seen map[string]int, mu *sync.Mutex) string, want ...string) {
	testseed.NeedKernel(t)
	params := gopterParams(t, envInt(t, envBatches, def, 0))
	params.MaxShrinkCount = 0 // failures are shrunk line by line below
	props := gopter.NewProperties(params)
	var mu sync.Mutex
	seen := map[string]int{}
	n := 0
	props.Property(name, prop.ForAll(func(batch [][]string) string {
		fails := runBatch(batch, func(lines []string) string { return check(lines, seen, &mu) })
		mu.Lock()
		n += len(batch)
		mu.Unlock()
		for i, f := range fails {
			if f != "" {
				lines, f := shrinkLines(batch[i], f, func(try []string) string { return check(try, seen, &mu) })
				if file := writeScript(pattern, lines); file != "" {
					f += "\nthe script is in " + file + ": rtnlsim diff " + file
				}
				return "shrunk: " + f
			}
		}
		return ""
	}, gen.SliceOfN(simLinksBatch, scripts)))
	report(t, props)
	t.Logf("%d scripts run on both targets; seen: %v", n, seen)
	for _, k := range want {
		if seen[k] == 0 {
			t.Errorf("no script reached %q", k)
		}
	}
}

// countRefused counts each errno the kernel gave in seen (the caller
// holds its lock) and returns the lines it refused.
func countRefused(errs []rtnl.LineError, seen map[string]int) map[int]bool {
	refused := map[int]bool{}
	for _, e := range errs {
		seen[e.Errno]++
		refused[e.Line] = true
	}
	return refused
}
