package outpath

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, ok := range []string{"", "-", filepath.Join(dir, "new.svg"), file, "relative.json"} {
		require.NoError(t, Check("--out", ok), ok)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "nope", "x.svg"): "does not exist",
		filepath.Join(file, "x.svg"):        "is not a directory",
		dir:                                 "is a directory, not a file",
	} {
		err := Check("--plot", path)
		require.ErrorContains(t, err, want, path)
		require.ErrorContains(t, err, `--plot "`+path+`"`)
	}
}
