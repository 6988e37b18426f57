package main

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/shlex"
	"github.com/stretchr/testify/require"
)

// docCharts are the documents whose `rtnlsim run ... --plot docs/charts/F`
// lines (outside console blocks) made a committed chart.
var docCharts = []string{filepath.Join("docs", "tutorial.md")}

// TestDocsChartsMatchTheirCommands runs each documented chart command again
// and compares what it draws with the committed chart, byte for byte, so
// that the picture cannot go stale. RTNLSIM_UPDATE_DOCS=1 writes the
// charts instead.
func TestDocsChartsMatchTheirCommands(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	t.Chdir(root)
	update := os.Getenv("RTNLSIM_UPDATE_DOCS") == "1"
	ran := 0
	for _, doc := range docCharts {
		fh, err := os.Open(doc)
		require.NoError(t, err)
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "rtnlsim run ") || !strings.Contains(line, "--plot docs/charts/") {
				continue
			}
			args, err := shlex.Split(strings.TrimPrefix(line, "rtnlsim "))
			require.NoError(t, err)
			chart := ""
			for i := range args[:len(args)-1] {
				if args[i] == "--plot" {
					chart = args[i+1]
					if !update {
						args[i+1] = filepath.Join(t.TempDir(), filepath.Base(chart))
					}
				}
			}
			_, stderr, err := runCLI(t, "", args...)
			require.NoError(t, err, "%s: %s\n%s", doc, line, stderr)
			ran++
			if update {
				t.Logf("%s: wrote %s", doc, chart)
				continue
			}
			got, err := os.ReadFile(args[slices.Index(args, "--plot")+1])
			require.NoError(t, err)
			want, err := os.ReadFile(chart)
			require.NoError(t, err, "%s: %s", doc, line)
			require.True(t, string(got) == string(want),
				"%s: %s draws a chart other than the committed %s (RTNLSIM_UPDATE_DOCS=1 rewrites it)", doc, line, chart)
			rel, _ := filepath.Rel("docs", chart)
			b, err := os.ReadFile(doc)
			require.NoError(t, err)
			require.Contains(t, string(b), "]("+filepath.ToSlash(rel)+")", "%s shows %s", doc, chart)
		}
		require.NoError(t, sc.Err())
		fh.Close()
	}
	require.GreaterOrEqual(t, ran, 2, "the tutorial's two lane charts")
}
