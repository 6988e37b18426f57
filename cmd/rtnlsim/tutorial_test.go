package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/shlex"
	"github.com/stretchr/testify/require"
)

// docsWithOutput are the documents whose console blocks show real output of
// the model; each must have at least one.
var docsWithOutput = []string{
	"README.md",
	filepath.Join("docs", "tutorial.md"),
	filepath.Join("docs", "model.md"),
	filepath.Join("docs", "seeds.md"),
}

// TestDocsShowRealOutput runs every `$ rtnlsim ...` line of the console
// blocks in docsWithOutput in-process, from the repository root, and
// compares what it prints with the lines under it: the documents show real
// output of the model. A command that appears in several documents runs
// once. RTNLSIM_UPDATE_DOCS=1 writes the output into the files instead.
// (Kernel output is in text blocks: it changes from run to run.)
func TestDocsShowRealOutput(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	t.Chdir(root)
	update := os.Getenv("RTNLSIM_UPDATE_DOCS") == "1"
	seen := map[string]string{} // command -> output, run once
	for _, doc := range docsWithOutput {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		out, ran := checkConsoleBlocks(t, doc, strings.Split(string(b), "\n"), seen, update)
		require.NotZero(t, ran, "no console blocks in %s", doc)
		if update {
			require.NoError(t, os.WriteFile(doc, []byte(strings.Join(out, "\n")), 0o644))
			t.Logf("%s: rewrote %d outputs", doc, ran)
		}
	}
}

// checkConsoleBlocks checks (or, with update, refreshes) each console block
// of lines: one `$ rtnlsim ARGS` line, then its standard output up to the
// closing fence. It returns the lines with fresh output and the number of
// commands run.
func checkConsoleBlocks(t *testing.T, doc string, lines []string, seen map[string]string, update bool) ([]string, int) {
	var out []string
	ran := 0
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if lines[i] != "```console" {
			continue
		}
		i++
		cmdLine := lines[i]
		require.True(t, strings.HasPrefix(cmdLine, "$ rtnlsim "), "%s:%d: a console block starts with `$ rtnlsim `", doc, i+1)
		end := i + 1
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		require.Less(t, end, len(lines), "%s:%d: console block not closed", doc, i+1)
		got, ok := seen[cmdLine]
		if !ok {
			args, err := shlex.Split(strings.TrimPrefix(cmdLine, "$ rtnlsim "))
			require.NoError(t, err)
			stdout, stderr, err := runCLI(t, "", args...)
			require.NoError(t, err, "%s:%d: %s\n%s", doc, i+1, cmdLine, stderr)
			got = strings.TrimRight(stdout, "\n")
			seen[cmdLine] = got
		}
		if !update {
			require.Equal(t, strings.Join(lines[i+1:end], "\n"), got,
				"%s:%d: the output of %q differs from the document's (RTNLSIM_UPDATE_DOCS=1 rewrites it)", doc, i+1, cmdLine)
		}
		out = append(out, cmdLine)
		if got != "" {
			out = append(out, strings.Split(got, "\n")...)
		}
		ran++
		i = end - 1
	}
	return out, ran
}
