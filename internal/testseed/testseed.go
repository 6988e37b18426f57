// Package testseed gives every property suite the same seed convention:
// a fixed default keeps `go test` deterministic (CI never goes red on a
// case nobody has seen), RTNLSIM_SEED=N replays seed N, and
// RTNLSIM_SEED=random explores with a fresh one. The seed is logged.
package testseed

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// Get returns the seed to use, def unless RTNLSIM_SEED says otherwise, and
// logs it with the way to replay it.
func Get(t testing.TB, def int64) int64 {
	t.Helper()
	seed := def
	switch s := os.Getenv("RTNLSIM_SEED"); s {
	case "":
	case "random":
		seed = time.Now().UnixNano()
	default:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("RTNLSIM_SEED=%q: want a number or random", s)
		}
		seed = v
	}
	t.Logf("gopter seed %d (RTNLSIM_SEED=%d replays it; RTNLSIM_SEED=random explores)", seed, seed)
	return seed
}
