// Package script reads the iproute2 batch language (`ip -b` syntax) into
// rtnl Requests, and writes Ops back as script lines.
//
// The grammar follows iproute2 6.1's parsers (ip/iplink.c, ip/ipaddress.c,
// ip/iproute.c, lib/utils.c): keywords, abbreviations (matches()), value
// syntax (base-0 numbers, short IPv4 forms like 10/8, dotted netmasks),
// quoting, comments and line continuation. Two extensions: `sysctl KEY=VALUE`
// for the net.ipv4.conf keys the model knows, and `link del list NAME...`.
// A line may start with the word `ip`, and with `-4` or `-6` (after `ip`, if
// any) for the flush commands. Anything the model does not support is a
// line-numbered error, never a silent skip; values the kernel judges (MTU
// ranges, host bits in route prefixes, ...) are passed on for the target to
// refuse with the kernel's errno.
//
// The grammar, one request per line ([ip] is optional; `#` starts a comment
// anywhere; a trailing backslash continues the line; '...' and "..." quote
// a word; objects, commands and the keywords iproute2 abbreviates may be
// abbreviated as its matches() allows, e.g. `l a`, `r ap`, `a d`):
//
//	link add [name|dev] NAME [index 1..2^31-1] [group G] [mtu N] [address LLADDR]
//	         [master DEV|nomaster] [txqueuelen N] [up|down] [link DEV] [netns NS] type KIND [ARGS]
//	    KIND ARGS: ifb | dummy | bridge | veth [peer [name] NAME [netns NS]]
//	               | macvlan [mode private|vepa|bridge|passthru|source] (needs link DEV)
//	               | vxlan id 0..16777215 [dstport 0..65535]
//	link set [dev] NAME [up|down] [mtu N] [group G] [address LLADDR]
//	         [master DEV|nomaster] [name NEWNAME] [txqueuelen N] [netns NS]
//	link set group G [up|down] [mtu N] [address LLADDR] [master DEV|nomaster] [txqueuelen N]
//	link del [dev] NAME | link del group G | link del list NAME...
//	addr add|del PREFIX dev NAME [peer PREFIX] [label DEV[...]] [broadcast ADDR|+]
//	         [scope global|site|link|host|nowhere|N] [noprefixroute]
//	[-4|-6] addr flush [dev] NAME [to PREFIX] [label PATTERN]
//	[-4|-6] route add|del|replace|append|prepend [to] [TYPE] PREFIX|default [via [inet|inet6] ADDR]
//	         [dev NAME] [table ID|main|local|default] [proto ID|kernel|boot|static|...]
//	         [scope ...] [metric|priority|preference N] [src ADDR] [tos|dsfield HEX]
//	    TYPE: unicast | local | broadcast | blackhole | unreachable | prohibit |
//	          throw | anycast | multicast
//	[-4|-6] route flush [table ID|all] [dev NAME] [proto ID] [scope S] [type T]
//	    [tos T] [metric N] [via PREFIX] [src PREFIX] [realms [FROM/]TO]
//	    [[to] [root|match|exact] PREFIX]
//	    (at least one of them: iproute2 refuses a bare `route flush`)
//	[-4|-6] rule add|del [not] [pref N] [from PREFIX|all] [to PREFIX|all] [tos HEX]
//	         [fwmark N[/MASK]] [iif NAME] [oif NAME] [table|lookup ID] [protocol P]
//	         [suppress_prefixlength N] [goto N | nop | blackhole | unreachable | prohibit]
//	[-4|-6] rule flush
//	netns add|del NAME
//	netns exec NAME [ip] CMD...   or   -n NAME CMD...   (CMD runs in namespace NAME)
//	sysctl [-w] net.ipv4.conf.DEV|all|default.KEY=VALUE   (keys: ConfKeys)
//	sysctl [-w] net.ipv4.ip_forward=VALUE                 (NetKeys)
//	sysctl [-w] net.ipv6.conf.DEV|all|default.KEY=VALUE   (keys: Conf6Keys)
//
// G, and the mtu and txqueuelen N, are numbers 0..2^31-1 (iproute2 reads
// them as ints; G may be `default`); numbers are read as strtoul base 0
// reads them (0x hex, leading-0 octal); IPv4 addresses as iproute2 reads
// them (10/8 is 10.0.0.0/8); interface names must pass the kernel's
// dev_valid_name. Duplicate keywords are refused. As in iproute2: an
// LLADDR for a named device in `link set` must be 6 bytes long (every
// kind above has Ethernet addresses); an IPv4 `addr del` without /LEN and
// without a peer deletes the first address with that local address,
// whatever its prefix length; `broadcast +` derives from the peer's prefix
// when a peer is given; and local, broadcast and anycast routes default to
// the local table only when no `table` is given (`table 0` is main).
package script

import (
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// LineError is one bad line: its number, the word at fault, and why.
type LineError struct {
	Line int
	Word string
	Msg  string
}

func (e *LineError) Error() string {
	return fmt.Sprintf("line %d: %q: %s", e.Line, e.Word, e.Msg)
}

// Errors lists every bad line of a script, in line order.
type Errors []*LineError

func (e Errors) Error() string {
	var b strings.Builder
	for i, le := range e {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(le.Error())
	}
	return b.String()
}

// Unwrap gives the LineErrors to errors.Is and errors.As.
func (e Errors) Unwrap() []error {
	out := make([]error, len(e))
	for i, le := range e {
		out[i] = le
	}
	return out
}

// Parse reads a script. Every non-blank, non-comment line becomes a
// Request. When some lines are bad, it returns the Requests of the good
// lines together with a *Errors naming every bad one. An error reading r is
// returned as it is.
func Parse(r io.Reader) ([]rtnl.Request, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	// One string for the whole script, its lines slices of it (a final
	// line without a newline counts; nothing after a final newline).
	physical := strings.Split(string(data), "\n")
	if physical[len(physical)-1] == "" {
		physical = physical[:len(physical)-1]
	}
	lines := joinLines(physical)
	reqs := make([]rtnl.Request, 0, len(lines))
	var errs Errors
	for _, rl := range lines {
		words, unterminated := splitWords(rl.text)
		if unterminated != "" {
			errs = append(errs, &LineError{Line: rl.line, Word: unterminated, Msg: "unterminated quoted string"})
			continue
		}
		if len(words) == 0 {
			continue
		}
		op, err := parseWords(words)
		if err != nil {
			err.Line = rl.line
			errs = append(errs, err)
			continue
		}
		reqs = append(reqs, rtnl.Request{Line: rl.line, Text: strings.Trim(rl.text, blanks), Op: op})
	}
	if len(reqs) == 0 {
		reqs = nil // none is nil, as it always was
	}
	if len(errs) > 0 {
		return reqs, &errs
	}
	return reqs, nil
}

// ParseString is Parse of a string.
func ParseString(s string) ([]rtnl.Request, error) {
	return Parse(strings.NewReader(s))
}

// words is the cursor over one line's words.
type words struct {
	w   []string
	i   int
	ctx string // e.g. "link set", for messages
}

func (p *words) more() bool     { return p.i < len(p.w) }
func (p *words) peek() string   { return p.w[p.i] }
func (p *words) take() string   { s := p.w[p.i]; p.i++; return s }
func (p *words) rest() []string { return p.w[p.i:] }

// arg takes the value after keyword kw.
func (p *words) arg(kw string) (string, *LineError) {
	if !p.more() {
		return "", &LineError{Word: kw, Msg: "missing argument"}
	}
	return p.take(), nil
}

func errf(word, format string, args ...any) *LineError {
	return &LineError{Word: word, Msg: fmt.Sprintf(format, args...)}
}

// llAddr is the argument of kw as a link-layer address (ll_addr_a2n),
// with the word as written.
func (p *words) llAddr(kw string) (string, net.HardwareAddr, *LineError) {
	s, err := p.arg(kw)
	if err != nil {
		return "", nil, err
	}
	hw, ok := parseLLAddr(s)
	if !ok {
		return "", nil, errf(s, "invalid link layer address (hex bytes separated by ':')")
	}
	return s, hw, nil
}

// onOff is the argument of kw, "on" or "off": exactly, as iproute2's
// strcmp for the interface flags, or any prefix (off first) for carrier,
// which it reads with parse_on_off.
func (p *words) onOff(kw string) (*bool, *LineError) {
	s, err := p.arg(kw)
	if err != nil {
		return nil, err
	}
	if kw == "carrier" {
		switch {
		case matches(s, "off"):
			s = "off"
		case matches(s, "on"):
			s = "on"
		}
	}
	if s != "on" && s != "off" {
		return nil, errf(s, `argument of %q must be "on" or "off"`, kw)
	}
	v := s == "on"
	return &v, nil
}

func (p *words) unknown(w string) *LineError {
	return errf(w, "unknown keyword in %q", p.ctx)
}

func (p *words) unsupported(w string) *LineError {
	return errf(w, "not supported in %q", p.ctx)
}

// keywords remembers which keywords a line has used, for the ones iproute2
// refuses twice (duparg).
type keywords map[string]bool

// once records kw, or refuses it with val as the offending word when the
// line already used it.
func (k keywords) once(kw, val string) *LineError {
	if k[kw] {
		return dup(kw, val)
	}
	k[kw] = true
	return nil
}

func dup(kw, val string) *LineError {
	return errf(val, "duplicate %q", kw)
}

// name takes and checks an interface name after keyword kw.
func (p *words) name(kw string) (string, *LineError) {
	s, err := p.arg(kw)
	if err != nil {
		return "", err
	}
	if !validName(s) {
		return "", errf(s, nameRule)
	}
	return s, nil
}

// number takes a number after keyword kw, 0..max (min..max when min > 0).
func (p *words) number(kw string, min, max uint64) (uint64, *LineError) {
	s, err := p.arg(kw)
	if err != nil {
		return 0, err
	}
	v, ok := parseUint(s, max)
	if !ok || v < min {
		return 0, errf(s, "invalid %q value (%d..%d)", kw, min, max)
	}
	return v, nil
}

// numberOnce is number for a keyword that may appear once: once records it
// (and refuses a second time, as iproute2's duparg does).
func (p *words) numberOnce(kw string, min, max uint64, once func(kw, val string) *LineError) (uint64, *LineError) {
	v, err := p.number(kw, min, max)
	if err != nil {
		return 0, err
	}
	return v, once(kw, p.w[p.i-1])
}

// namedOnce is named for a keyword that may appear once: once records it
// (and refuses a second time, as iproute2's duparg does).
func (p *words) namedOnce(kw string, t *nameTable, once func(kw, val string) *LineError) (uint64, *LineError) {
	v, err := p.named(kw, t)
	if err != nil {
		return 0, err
	}
	return v, once(kw, p.w[p.i-1])
}

// named takes a value of a name table after keyword kw.
func (p *words) named(kw string, t *nameTable) (uint64, *LineError) {
	s, err := p.arg(kw)
	if err != nil {
		return 0, err
	}
	v, ok := t.parse(s)
	if !ok {
		return 0, errf(s, "%s", t.rangeMsg())
	}
	return v, nil
}

// devName reads the device a command names, as `dev NAME` (w is "dev") or,
// as iproute2 takes any other word there, a bare NAME; named says whether
// the line named one already.
func (p *words) devName(w string, named bool) (string, *LineError) {
	if w == "dev" {
		n, err := p.name(w)
		if err != nil {
			return "", err
		}
		if named {
			return "", dup("dev", n)
		}
		return n, nil
	}
	if named {
		return "", p.unknown(w)
	}
	if !validName(w) {
		return "", errf(w, nameRule)
	}
	return w, nil
}

var objects = []struct{ name, canon string }{
	// ip.c's command table order, for abbreviations: "a" is address,
	// "r" route, "l" link.
	{"address", "addr"}, {"addrlabel", ""}, {"maddress", ""}, {"route", "route"},
	{"rule", "rule"}, {"neighbor", ""}, {"neighbour", ""}, {"ntable", ""}, {"ntbl", ""},
	{"link", "link"}, {"netns", "netns"}, {"nexthop", "nexthop"},
}

func parseWords(w []string) (rtnl.Op, *LineError) {
	p := &words{w: w}
	if p.peek() == "ip" {
		p.take()
	}
	if p.more() && (p.peek() == "-n" || p.peek() == "-netns") {
		// `ip -n NAME CMD...` is `ip netns exec NAME ip CMD...`.
		kw := p.take()
		name, err := p.netnsName(kw)
		if err != nil {
			return nil, err
		}
		return inNetns(name, p.rest())
	}
	family := 0
	for p.more() && (p.peek() == "-4" || p.peek() == "-6") {
		f := 4
		if p.take() == "-6" {
			f = 6
		}
		if family != 0 && family != f {
			return nil, errf(p.w[p.i-1], "conflicts with -%d", family)
		}
		family = f
	}
	if !p.more() {
		return nil, errf(strings.Join(w, " "), "missing object (link, addr, route, rule, nexthop, netns, sysctl)")
	}
	obj := p.take()
	if obj == "sysctl" {
		if family != 0 {
			return nil, errf(fmt.Sprintf("-%d", family), "not supported with sysctl")
		}
		return parseSysctl(p)
	}
	canon := ""
	for _, o := range objects {
		if matches(obj, o.name) {
			canon = o.canon
			if canon == "" {
				return nil, errf(obj, "object %q is not supported (link, addr, route, rule, nexthop, netns, sysctl)", o.name)
			}
			break
		}
	}
	if canon == "" {
		return nil, errf(obj, "unknown object (link, addr, route, rule, nexthop, netns, sysctl)")
	}
	if !p.more() {
		return nil, errf(obj, "missing command")
	}
	verb := p.take()
	switch canon {
	case "link":
		return parseLink(p, verb, family)
	case "addr":
		return parseAddrCmd(p, verb, family)
	case "rule":
		return parseRuleCmd(p, verb, family)
	case "nexthop":
		return parseNexthopCmd(p, verb, family)
	case "netns":
		if err := noFamily(family, "netns"); err != nil {
			return nil, err
		}
		return parseNetns(p, verb)
	default:
		return parseRouteCmd(p, verb, family)
	}
}

var netnsVerbs = []struct{ name, canon string }{
	// do_netns's order.
	{"list", ""}, {"list-id", ""}, {"monitor", ""}, {"add", "add"}, {"attach", ""}, {"set", ""},
	{"delete", "del"}, {"identify", ""}, {"pids", ""}, {"exec", "exec"},
}

// parseNetns is `netns add|del NAME` and `netns exec NAME [ip] CMD...`.
func parseNetns(p *words, verb string) (rtnl.Op, *LineError) {
	v, err := pickVerb("netns", verb, netnsVerbs)
	if err != nil {
		return nil, err
	}
	p.ctx = "netns " + v
	name, err := p.netnsName(v)
	if err != nil {
		return nil, err
	}
	if v == "add" || v == "del" {
		if p.more() {
			return nil, p.unknown(p.peek())
		}
		if v == "del" {
			return rtnl.NetnsDel{Name: name}, nil
		}
		return rtnl.NetnsAdd{Name: name}, nil
	}
	return inNetns(name, p.rest())
}

// inNetns parses the command run in namespace name: an `ip` command (the
// word ip optional) or a sysctl line.
func inNetns(name string, rest []string) (rtnl.Op, *LineError) {
	if len(rest) == 0 {
		return nil, errf(name, "missing command")
	}
	op, err := parseWords(rest)
	if err != nil {
		return nil, err
	}
	switch op.(type) {
	case rtnl.InNetns, rtnl.NetnsAdd, rtnl.NetnsDel:
		return nil, errf(name, "a namespace command inside another is not supported")
	}
	return rtnl.InNetns{Name: name, Op: op}, nil
}

// netnsName takes a namespace name after kw: as `ip netns` takes them, a
// name that is not "." or "..", without '/'.
func (p *words) netnsName(kw string) (string, *LineError) {
	s, err := p.arg(kw)
	if err != nil {
		return "", err
	}
	if s == "" || s == "." || s == ".." || strings.Contains(s, "/") {
		return "", errf(s, "invalid namespace name")
	}
	return s, nil
}

// pickVerb resolves an abbreviated command against an ordered list; names
// mapped to "" are known to iproute2 but not supported here.
func pickVerb(obj, verb string, list []struct{ name, canon string }) (string, *LineError) {
	for _, v := range list {
		if matches(verb, v.name) {
			if v.canon == "" {
				return "", errf(verb, "command %q is not supported for %q", v.name, obj)
			}
			return v.canon, nil
		}
	}
	return "", errf(verb, "unknown command for %q", obj)
}

func noFamily(family int, ctx string) *LineError {
	if family != 0 {
		return errf(fmt.Sprintf("-%d", family), "only supported with flush, not %q", ctx)
	}
	return nil
}
