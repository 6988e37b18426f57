package uapi

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"
)

// The model's errors read and match alike on every OS.
func TestErrno(t *testing.T) {
	require.Equal(t, "file exists", EEXIST.Error())
	require.Equal(t, "invalid argument", EINVAL.Error())
	require.Equal(t, "EOPNOTSUPP", ErrnoName(EOPNOTSUPP))
	require.Equal(t, "ENODEV", ErrnoName(ENODEV))

	wrapped := fmt.Errorf("ifindex 3: %w", ENODEV)
	require.ErrorIs(t, wrapped, ENODEV)
	require.NotErrorIs(t, wrapped, EINVAL)
	var e Errno
	require.ErrorAs(t, wrapped, &e)
	require.Equal(t, ENODEV, e)

	require.ErrorIs(t, EEXIST, fs.ErrExist)
	require.ErrorIs(t, ENOENT, fs.ErrNotExist)
	require.ErrorIs(t, EPERM, fs.ErrPermission)
	require.ErrorIs(t, EOPNOTSUPP, errors.ErrUnsupported)
	require.NotErrorIs(t, EINVAL, fs.ErrExist)
}
