package ipbatch

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// mountNetns bind-mounts each namespace of paths (name to /proc path) at
// /run/netns/mountedName(name), and returns what undoes it.
func mountNetns(paths map[string]string) (func(), error) {
	var made []string
	undo := func() {
		for _, f := range made {
			_ = unix.Unmount(f, unix.MNT_DETACH)
			_ = os.Remove(f)
		}
	}
	if len(paths) == 0 {
		return undo, nil
	}
	if err := os.MkdirAll(runNetns, 0o755); err != nil {
		return undo, err
	}
	for name, path := range paths {
		f := filepath.Join(runNetns, mountedName(name))
		if err := os.WriteFile(f, nil, 0o444); err != nil {
			undo()
			return func() {}, err
		}
		made = append(made, f)
		if err := unix.Mount(path, f, "", unix.MS_BIND, ""); err != nil {
			undo()
			return func() {}, fmt.Errorf("ipbatch: bind-mount namespace %q at %s: %w", name, f, err)
		}
	}
	return undo, nil
}
