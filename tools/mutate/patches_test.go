// Package mutate holds the mutation check's patches (mutate.sh runs
// them); its test keeps them applicable as the model changes.
package mutate

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every patch mutations.txt names applies to the tree as it is: a model
// change that moves the patched lines must refresh the patch, or `make
// mutate` stops at it.
func TestPatchesApply(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is needed to check the patches: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("mutations.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "|")
		if len(fields) < 2 {
			t.Fatalf("mutations.txt: %q has no patch", line)
		}
		patch := strings.TrimSpace(fields[1])
		if seen[patch] {
			continue
		}
		seen[patch] = true
		cmd := exec.Command(git, "apply", "--check", filepath.Join("tools", "mutate", "testdata", patch))
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s does not apply: %v\n%s", patch, err, out)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 {
		t.Fatal("mutations.txt names no patch")
	}
}
