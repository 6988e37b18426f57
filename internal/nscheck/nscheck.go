// Package nscheck guards the namespace the tests start in: TestMain takes
// a snapshot of its links, addresses and routes (read with iproute2, an
// independent reader) before the suite and compares after it, so a test
// that leaked a change into the caller's namespace fails the run.
package nscheck

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"testing"
)

// Snapshot is the starting namespace as `ip -j` shows it, with the values
// that change by themselves (address lifetimes, route expiry) removed.
type Snapshot map[string]any

// Take reads the current namespace. It only reads.
func Take() (Snapshot, error) {
	s := Snapshot{}
	for _, args := range [][]string{{"link", "show"}, {"addr", "show"}, {"route", "show", "table", "all"}} {
		out, err := exec.Command("ip", append([]string{"-j"}, args...)...).Output()
		if err != nil {
			return nil, fmt.Errorf("ip -j %v: %w", args, err)
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			return nil, fmt.Errorf("ip -j %v: %w", args, err)
		}
		s[args[0]] = scrub(v)
	}
	return s, nil
}

func scrub(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"valid_life_time", "preferred_life_time", "expires", "stats64", "stats"} {
			delete(x, k)
		}
		for k, e := range x {
			x[k] = scrub(e)
		}
	case []any:
		for i, e := range x {
			x[i] = scrub(e)
		}
	}
	return v
}

// Main wraps m.Run with the before/after comparison. Off Linux it only
// runs the tests: no test can change a network namespace there (the kernel
// target needs Linux), and iproute2 is not there to read one.
func Main(m *testing.M) {
	if runtime.GOOS != "linux" {
		os.Exit(m.Run())
	}
	before, err := Take()
	if err != nil {
		fmt.Fprintln(os.Stderr, "nscheck:", err)
		os.Exit(2)
	}
	code := m.Run()
	after, err := Take()
	if err != nil {
		fmt.Fprintln(os.Stderr, "nscheck:", err)
		os.Exit(2)
	}
	if !reflect.DeepEqual(before, after) {
		b, _ := json.MarshalIndent(before, "", " ")
		a, _ := json.MarshalIndent(after, "", " ")
		fmt.Fprintf(os.Stderr, "nscheck: the starting network namespace changed during the tests\nbefore: %s\nafter: %s\n", b, a)
		code = 1
	} else {
		fmt.Println("nscheck: starting namespace unchanged (links, addresses, routes)")
	}
	os.Exit(code)
}
