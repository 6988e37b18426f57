// Package gcpace sets the garbage collector's pace for the commands that
// run the model.
//
// The model allocates and frees FIB nodes at a high rate (a promoting
// flush rebuilds the subnet's routes once per promotion): with the
// collector at its default pace that garbage costs about a third of a run.
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
