// Package outpath checks an output file's path before a long run, so that
// a mistyped directory fails at once instead of after the work is done.
package outpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Check refuses path, given as flag, when its directory does not exist or
// is not a directory, or when path itself is a directory. "" (no file)
// and "-" (standard output, for the flags that take it) pass. It creates
// nothing.
func Check(flag, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s %q: is a directory, not a file", flag, path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %q: directory %s does not exist", flag, path, dir)
	case err != nil:
		return fmt.Errorf("%s %q: %w", flag, path, err)
	case !st.IsDir():
		return fmt.Errorf("%s %q: %s is not a directory", flag, path, dir)
	}
	return nil
}
