// Package ipbatch times scripts on the kernel the way users run them,
// through iproute2 (`ip -b` batch files, one process per user thread, in
// a fresh network namespace each run), and times the model on the same
// scripts, for `rtnlsim measure` and `make speed`.
package ipbatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Line is the `ip -b` line of r: its text without the optional leading
// `ip`. What iproute2 cannot run in a batch file is refused: the model's
// extensions (sysctl, link del list) and per-line options (-4, -6; ip
// takes them only on its command line).
func Line(r rtnl.Request) (string, error) {
	switch r.Op.(type) {
	case rtnl.Sysctl:
		return "", fmt.Errorf("line %d (%s): sysctl is the model's extension, not an ip command (put it in the setup)", r.Line, r.Text)
	case rtnl.LinkDelList:
		return "", fmt.Errorf("line %d (%s): link del list is the model's extension, not an ip command", r.Line, r.Text)
	case rtnl.NetnsAdd, rtnl.NetnsDel, rtnl.InNetns:
		return "", fmt.Errorf("line %d (%s): namespaces are made and entered in the setup; the timed part may move devices to them", r.Line, r.Text)
	}
	// The text is the logical line, comment cut and continuations joined
	// (script.Parse): ip reads it the same way.
	text := strings.TrimSpace(r.Text)
	words := strings.Fields(text)
	if len(words) > 0 && words[0] == "ip" {
		text = strings.TrimSpace(text[len("ip"):])
		words = words[1:]
	}
	if len(words) == 0 {
		return "", fmt.Errorf("line %d: no text to write (a generated request?)", r.Line)
	}
	if strings.HasPrefix(words[0], "-") {
		return "", fmt.Errorf("line %d (%s): %s: ip -b takes options only on its command line, not per line", r.Line, r.Text, words[0])
	}
	return text, nil
}

// Lines is the `ip -b` line of each request; every line iproute2 cannot
// run is named in the error.
func Lines(reqs []rtnl.Request) ([]string, error) {
	out := make([]string, 0, len(reqs))
	var errs []error
	for _, r := range reqs {
		l, err := Line(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, l)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("ip -b cannot run %d line(s) of the main script:\n%w", len(errs), errors.Join(errs...))
	}
	return out, nil
}

// WriteBatches writes each slice of lines as a batch file in dir, named
// PREFIXi.batch, and returns their paths, in slice order.
func WriteBatches(dir, prefix string, slices [][]string) ([]string, error) {
	paths := make([]string, len(slices))
	for i, s := range slices {
		var b strings.Builder
		for _, l := range s {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		paths[i] = filepath.Join(dir, fmt.Sprintf("%s%d.batch", prefix, i))
		if err := os.WriteFile(paths[i], []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
	}
	return paths, nil
}
