package script

import (
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// showFilters are ipaddr_list_flush_or_save's and iplink's filter words,
// which the model does not take (nor a device named like one).
var showFilters = []string{"up", "type", "master", "nomaster", "vrf", "group", "scope", "to", "label",
	"dynamic", "permanent", "tentative", "-tentative", "deprecated", "-deprecated", "dadfailed", "-dadfailed",
	"temporary", "secondary", "primary", "home", "nodad", "mngtmpaddr", "noprefixroute", "autojoin", "proto",
	"protocol", "metric"}

// parseShow is `link show [dev] NAME`, `addr show [dev] NAME`, `route
// show [table ID|all]` and `rule show`: the filters the model has; any
// other word is refused by name.
func parseShow(p *words, object string, family int) (rtnl.Op, *LineError) {
	p.ctx = object + " show"
	op := rtnl.ShowOp{Object: object, Family: family}
	if object == "link" && family != 0 {
		return nil, noFamily(family, p.ctx)
	}
	for p.more() {
		w := p.take()
		switch {
		case contains(showFilters, w):
			return nil, p.unsupported(w)
		case (object == "link" || object == "addr") && op.Dev == "":
			n, err := p.devName(w, false)
			if err != nil {
				return nil, err
			}
			op.Dev = n
		case object == "route" && matches(w, "table") && op.Table == 0:
			s, err := p.arg(w)
			if err != nil {
				return nil, err
			}
			if s == "all" {
				op.Table = rtnl.TableAll
				continue
			}
			v, ok := tables.parse(s)
			if !ok || v == 0 {
				return nil, errf(s, "invalid table ID")
			}
			op.Table = uint32(v)
		default:
			return nil, p.unsupported(w)
		}
	}
	return op, nil
}
