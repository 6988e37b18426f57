package fibtrie

import "fmt"

// OpKind is the kind of one route request.
type OpKind uint8

const (
	OpAdd     OpKind = iota // ip route add: NLM_F_CREATE|NLM_F_EXCL
	OpDel                   // ip route del
	OpReplace               // ip route replace: NLM_F_CREATE|NLM_F_REPLACE
	OpAppend                // ip route append: NLM_F_CREATE|NLM_F_APPEND
	OpPrepend               // ip route prepend: NLM_F_CREATE
)

var opNames = [...]string{"add", "del", "replace", "append", "prepend"}

func (k OpKind) String() string {
	if int(k) < len(opNames) {
		return opNames[k]
	}
	return fmt.Sprintf("op%d", k)
}

// RouteOp is one route request, the unit both the model and a kernel
// target replay. WantErr is what the model answered (0 on success), filled
// in by callers that compare against a kernel.
type RouteOp struct {
	Kind    OpKind
	Route   Route
	WantErr error
}

// Apply performs op on f.
func (op RouteOp) Apply(f *FIB) error {
	switch op.Kind {
	case OpAdd:
		return f.Add(op.Route)
	case OpDel:
		return f.Delete(op.Route)
	case OpReplace:
		return f.Replace(op.Route)
	case OpAppend:
		return f.Append(op.Route)
	case OpPrepend:
		return f.Prepend(op.Route)
	}
	return fmt.Errorf("fibtrie: unknown op %d", op.Kind)
}

// IfaddrRoutes are the routes fib_add_ifaddr (net/ipv4/fib_frontend.c)
// installs for the primary address local/plen of an UP device with ifindex
// oif, in its order: the local /32 (local table), the prefix route (main)
// and the subnet broadcast /32 (local). plen must be below 31.
func IfaddrRoutes(local uint32, plen uint8, oif int) []Route {
	mask := ^uint32(0) << (32 - plen)
	net := local & mask
	return []Route{
		{Dst: local, Len: 32, Table: TableLocal, Type: TypeLocal, Scope: ScopeHost, Protocol: 2, PrefSrc: local, OIF: oif},
		{Dst: net, Len: plen, Table: TableMain, Type: TypeUnicast, Scope: ScopeLink, Protocol: 2, PrefSrc: local, OIF: oif},
		{Dst: net | ^mask, Len: 32, Table: TableLocal, Type: TypeBroadcast, Scope: ScopeLink, Protocol: 2, PrefSrc: local, OIF: oif},
	}
}
