//go:build !linux

package ipbatch

import "errors"

// mountNetns needs Linux, as the kernel runs do.
func mountNetns(paths map[string]string) (func(), error) {
	if len(paths) == 0 {
		return func() {}, nil
	}
	return func() {}, errors.New("ipbatch: named namespaces need Linux")
}
