// Package seeds registers every seed with package repro: import it for its
// side effect.
package seeds

import (
	_ "github.com/rtnlsim/rtnlsim/internal/repro/seed000"
	_ "github.com/rtnlsim/rtnlsim/internal/repro/seed001"
	_ "github.com/rtnlsim/rtnlsim/internal/repro/seed002"
	_ "github.com/rtnlsim/rtnlsim/internal/repro/seed003"
	_ "github.com/rtnlsim/rtnlsim/internal/repro/seed004"
)
