package calib

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// defaultHZ is taken when the kernel's configuration cannot be read: 250 is
// the x86 default and this machine's value.
const defaultHZ = 250

// Jiffy is the length of one scheduling-clock tick of the running kernel,
// read from CONFIG_HZ in /proc/config.gz, and where it came from. It sets
// the rcu_barrier sharing window (cost.Params.RCUBarrierShareWindowNs):
// callbacks queued by one deletion get their grace period started by
// rcu_core on a later tick, so a caller whose callbacks are queued up to a
// tick after another's rides on the same grace period. It is read, not
// fitted: no calibration scenario has two threads.
func Jiffy() (ns int64, source string) {
	hz, err := configHZ("/proc/config.gz")
	if err != nil {
		return 1e9 / defaultHZ, fmt.Sprintf("HZ=%d assumed (%v)", defaultHZ, err)
	}
	return 1e9 / hz, fmt.Sprintf("CONFIG_HZ=%d from /proc/config.gz", hz)
}

func configHZ(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(z)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CONFIG_HZ="); ok {
			hz, err := strconv.ParseInt(v, 10, 64)
			if err != nil || hz <= 0 {
				return 0, fmt.Errorf("%s: CONFIG_HZ=%q", path, v)
			}
			return hz, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return 0, fmt.Errorf("%s has no CONFIG_HZ", path)
}
