//go:build linux

package kernel

import (
	"testing"

	"github.com/rtnlsim/rtnlsim/internal/nscheck"
)

func TestMain(m *testing.M) { nscheck.Main(m) }
