// Package gcpace sets the garbage collector's pace for the commands that
// run the model.
//
// The model allocates and frees FIB nodes at a high rate (a promoting
// flush rebuilds the subnet's routes once per promotion): with the
// collector at its default pace that garbage cost a promoting flush of 2000
// addresses a quarter to a third of its time (measured: GOGC=400 took it
// from 2.2 s to 1.7 s in the CLI, from 2.5 s to 1.6 s in the benchmark).
package gcpace

import (
	"os"
	"runtime/debug"
)

const (
	// Percent lets the heap grow to five times what is live before a
	// collection.
	Percent = 400
	// SoftLimit makes the collector work harder again as the heap nears
	// it.
	SoftLimit = 4 << 30
)

// Set applies Percent and SoftLimit unless the user set GOGC (or
// GOMEMLIMIT, for the limit).
func Set() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(Percent)
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(SoftLimit)
	}
}
