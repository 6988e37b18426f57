package sim

import (
	"fmt"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// route carries out a route request (add, del, replace, append, prepend,
// flush). Not modelled yet.
func (n *Netns) route(op rtnl.Op) error {
	return fmt.Errorf("%w: %s (user routes are being written)", ErrNotModelled, op.Verb())
}
