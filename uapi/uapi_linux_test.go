//go:build linux

package uapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// linuxValues pairs every constant of the package with x/sys/unix's
// constant of the same name: uapi's value first, x/sys/unix's second.
var linuxValues = map[string][2]int64{
	"AF_UNSPEC": {AF_UNSPEC, unix.AF_UNSPEC},
	"AF_INET":   {AF_INET, unix.AF_INET},
	"AF_INET6":  {AF_INET6, unix.AF_INET6},
	"AF_PACKET": {AF_PACKET, unix.AF_PACKET},

	"ARPHRD_ETHER":    {ARPHRD_ETHER, unix.ARPHRD_ETHER},
	"ARPHRD_LOOPBACK": {ARPHRD_LOOPBACK, unix.ARPHRD_LOOPBACK},
	"ARPHRD_NONE":     {ARPHRD_NONE, unix.ARPHRD_NONE},
	"ARPHRD_VOID":     {ARPHRD_VOID, unix.ARPHRD_VOID},

	"IFNAMSIZ": {IFNAMSIZ, unix.IFNAMSIZ},

	"IFF_UP":          {IFF_UP, unix.IFF_UP},
	"IFF_BROADCAST":   {IFF_BROADCAST, unix.IFF_BROADCAST},
	"IFF_DEBUG":       {IFF_DEBUG, unix.IFF_DEBUG},
	"IFF_LOOPBACK":    {IFF_LOOPBACK, unix.IFF_LOOPBACK},
	"IFF_POINTOPOINT": {IFF_POINTOPOINT, unix.IFF_POINTOPOINT},
	"IFF_NOTRAILERS":  {IFF_NOTRAILERS, unix.IFF_NOTRAILERS},
	"IFF_RUNNING":     {IFF_RUNNING, unix.IFF_RUNNING},
	"IFF_NOARP":       {IFF_NOARP, unix.IFF_NOARP},
	"IFF_PROMISC":     {IFF_PROMISC, unix.IFF_PROMISC},
	"IFF_ALLMULTI":    {IFF_ALLMULTI, unix.IFF_ALLMULTI},
	"IFF_MASTER":      {IFF_MASTER, unix.IFF_MASTER},
	"IFF_SLAVE":       {IFF_SLAVE, unix.IFF_SLAVE},
	"IFF_MULTICAST":   {IFF_MULTICAST, unix.IFF_MULTICAST},
	"IFF_PORTSEL":     {IFF_PORTSEL, unix.IFF_PORTSEL},
	"IFF_AUTOMEDIA":   {IFF_AUTOMEDIA, unix.IFF_AUTOMEDIA},
	"IFF_DYNAMIC":     {IFF_DYNAMIC, unix.IFF_DYNAMIC},
	"IFF_LOWER_UP":    {IFF_LOWER_UP, unix.IFF_LOWER_UP},
	"IFF_DORMANT":     {IFF_DORMANT, unix.IFF_DORMANT},
	"IFF_ECHO":        {IFF_ECHO, unix.IFF_ECHO},

	"IFA_F_SECONDARY":      {IFA_F_SECONDARY, unix.IFA_F_SECONDARY},
	"IFA_F_NODAD":          {IFA_F_NODAD, unix.IFA_F_NODAD},
	"IFA_F_OPTIMISTIC":     {IFA_F_OPTIMISTIC, unix.IFA_F_OPTIMISTIC},
	"IFA_F_DADFAILED":      {IFA_F_DADFAILED, unix.IFA_F_DADFAILED},
	"IFA_F_HOMEADDRESS":    {IFA_F_HOMEADDRESS, unix.IFA_F_HOMEADDRESS},
	"IFA_F_DEPRECATED":     {IFA_F_DEPRECATED, unix.IFA_F_DEPRECATED},
	"IFA_F_TENTATIVE":      {IFA_F_TENTATIVE, unix.IFA_F_TENTATIVE},
	"IFA_F_PERMANENT":      {IFA_F_PERMANENT, unix.IFA_F_PERMANENT},
	"IFA_F_MANAGETEMPADDR": {IFA_F_MANAGETEMPADDR, unix.IFA_F_MANAGETEMPADDR},
	"IFA_F_NOPREFIXROUTE":  {IFA_F_NOPREFIXROUTE, unix.IFA_F_NOPREFIXROUTE},
	"IFA_F_MCAUTOJOIN":     {IFA_F_MCAUTOJOIN, unix.IFA_F_MCAUTOJOIN},
	"IFA_F_STABLE_PRIVACY": {IFA_F_STABLE_PRIVACY, unix.IFA_F_STABLE_PRIVACY},

	"RTNH_F_DEAD":       {RTNH_F_DEAD, unix.RTNH_F_DEAD},
	"RTNH_F_PERVASIVE":  {RTNH_F_PERVASIVE, unix.RTNH_F_PERVASIVE},
	"RTNH_F_ONLINK":     {RTNH_F_ONLINK, unix.RTNH_F_ONLINK},
	"RTNH_F_OFFLOAD":    {RTNH_F_OFFLOAD, unix.RTNH_F_OFFLOAD},
	"RTNH_F_LINKDOWN":   {RTNH_F_LINKDOWN, unix.RTNH_F_LINKDOWN},
	"RTNH_F_UNRESOLVED": {RTNH_F_UNRESOLVED, unix.RTNH_F_UNRESOLVED},
	"RTNH_F_TRAP":       {RTNH_F_TRAP, unix.RTNH_F_TRAP},

	"RTM_F_NOTIFY":         {RTM_F_NOTIFY, unix.RTM_F_NOTIFY},
	"RTM_F_OFFLOAD":        {RTM_F_OFFLOAD, unix.RTM_F_OFFLOAD},
	"RTM_F_TRAP":           {RTM_F_TRAP, unix.RTM_F_TRAP},
	"RTM_F_OFFLOAD_FAILED": {RTM_F_OFFLOAD_FAILED, unix.RTM_F_OFFLOAD_FAILED},

	"RTN_UNSPEC":      {RTN_UNSPEC, unix.RTN_UNSPEC},
	"RTN_UNICAST":     {RTN_UNICAST, unix.RTN_UNICAST},
	"RTN_LOCAL":       {RTN_LOCAL, unix.RTN_LOCAL},
	"RTN_BROADCAST":   {RTN_BROADCAST, unix.RTN_BROADCAST},
	"RTN_ANYCAST":     {RTN_ANYCAST, unix.RTN_ANYCAST},
	"RTN_MULTICAST":   {RTN_MULTICAST, unix.RTN_MULTICAST},
	"RTN_BLACKHOLE":   {RTN_BLACKHOLE, unix.RTN_BLACKHOLE},
	"RTN_UNREACHABLE": {RTN_UNREACHABLE, unix.RTN_UNREACHABLE},
	"RTN_PROHIBIT":    {RTN_PROHIBIT, unix.RTN_PROHIBIT},
	"RTN_NAT":         {RTN_NAT, unix.RTN_NAT},

	"RTPROT_UNSPEC": {RTPROT_UNSPEC, unix.RTPROT_UNSPEC},
	"RTPROT_KERNEL": {RTPROT_KERNEL, unix.RTPROT_KERNEL},
	"RTPROT_BOOT":   {RTPROT_BOOT, unix.RTPROT_BOOT},

	"RT_SCOPE_UNIVERSE": {RT_SCOPE_UNIVERSE, unix.RT_SCOPE_UNIVERSE},
	"RT_SCOPE_SITE":     {RT_SCOPE_SITE, unix.RT_SCOPE_SITE},
	"RT_SCOPE_LINK":     {RT_SCOPE_LINK, unix.RT_SCOPE_LINK},
	"RT_SCOPE_HOST":     {RT_SCOPE_HOST, unix.RT_SCOPE_HOST},
	"RT_SCOPE_NOWHERE":  {RT_SCOPE_NOWHERE, unix.RT_SCOPE_NOWHERE},

	"RT_TABLE_DEFAULT": {RT_TABLE_DEFAULT, unix.RT_TABLE_DEFAULT},
	"RT_TABLE_MAIN":    {RT_TABLE_MAIN, unix.RT_TABLE_MAIN},
	"RT_TABLE_LOCAL":   {RT_TABLE_LOCAL, unix.RT_TABLE_LOCAL},

	"RTM_NEWLINK":  {RTM_NEWLINK, unix.RTM_NEWLINK},
	"RTM_DELLINK":  {RTM_DELLINK, unix.RTM_DELLINK},
	"RTM_GETLINK":  {RTM_GETLINK, unix.RTM_GETLINK},
	"RTM_NEWADDR":  {RTM_NEWADDR, unix.RTM_NEWADDR},
	"RTM_DELADDR":  {RTM_DELADDR, unix.RTM_DELADDR},
	"RTM_GETADDR":  {RTM_GETADDR, unix.RTM_GETADDR},
	"RTM_NEWROUTE": {RTM_NEWROUTE, unix.RTM_NEWROUTE},
	"RTM_DELROUTE": {RTM_DELROUTE, unix.RTM_DELROUTE},
	"RTM_NEWRULE":  {RTM_NEWRULE, unix.RTM_NEWRULE},
	"RTM_DELRULE":  {RTM_DELRULE, unix.RTM_DELRULE},
	"RTM_NEWNSID":  {RTM_NEWNSID, unix.RTM_NEWNSID},
	"RTM_GETNSID":  {RTM_GETNSID, unix.RTM_GETNSID},

	"NLMSG_ALIGNTO":   {NLMSG_ALIGNTO, unix.NLMSG_ALIGNTO},
	"NLMSG_HDRLEN":    {NLMSG_HDRLEN, unix.NLMSG_HDRLEN},
	"NLMSG_ERROR":     {NLMSG_ERROR, unix.NLMSG_ERROR},
	"NLMSG_DONE":      {NLMSG_DONE, unix.NLMSG_DONE},
	"NLM_F_REQUEST":   {NLM_F_REQUEST, unix.NLM_F_REQUEST},
	"NLM_F_ACK":       {NLM_F_ACK, unix.NLM_F_ACK},
	"NLM_F_DUMP_INTR": {NLM_F_DUMP_INTR, unix.NLM_F_DUMP_INTR},
	"NLM_F_EXCL":      {NLM_F_EXCL, unix.NLM_F_EXCL},
	"NLM_F_CREATE":    {NLM_F_CREATE, unix.NLM_F_CREATE},
	"NLM_F_DUMP":      {NLM_F_DUMP, unix.NLM_F_DUMP},

	"IFLA_IFNAME":         {IFLA_IFNAME, unix.IFLA_IFNAME},
	"IFLA_LINKINFO":       {IFLA_LINKINFO, unix.IFLA_LINKINFO},
	"IFLA_NET_NS_FD":      {IFLA_NET_NS_FD, unix.IFLA_NET_NS_FD},
	"IFLA_TARGET_NETNSID": {IFLA_TARGET_NETNSID, unix.IFLA_TARGET_NETNSID},
	"IFLA_INFO_KIND":      {IFLA_INFO_KIND, unix.IFLA_INFO_KIND},
	"IFLA_INFO_DATA":      {IFLA_INFO_DATA, unix.IFLA_INFO_DATA},
	"IFA_ADDRESS":         {IFA_ADDRESS, unix.IFA_ADDRESS},
	"IFA_LOCAL":           {IFA_LOCAL, unix.IFA_LOCAL},
	"IFA_TARGET_NETNSID":  {IFA_TARGET_NETNSID, unix.IFA_TARGET_NETNSID},
	"NETNSA_NSID":         {NETNSA_NSID, unix.NETNSA_NSID},
	"NETNSA_FD":           {NETNSA_FD, unix.NETNSA_FD},

	"SizeofIfInfomsg": {SizeofIfInfomsg, unix.SizeofIfInfomsg},
	"SizeofIfAddrmsg": {SizeofIfAddrmsg, unix.SizeofIfAddrmsg},

	"EPERM":         {int64(EPERM), int64(unix.EPERM)},
	"ENOENT":        {int64(ENOENT), int64(unix.ENOENT)},
	"ESRCH":         {int64(ESRCH), int64(unix.ESRCH)},
	"EINTR":         {int64(EINTR), int64(unix.EINTR)},
	"ENXIO":         {int64(ENXIO), int64(unix.ENXIO)},
	"ERANGE":        {int64(ERANGE), int64(unix.ERANGE)},
	"EAGAIN":        {int64(EAGAIN), int64(unix.EAGAIN)},
	"ENOMEM":        {int64(ENOMEM), int64(unix.ENOMEM)},
	"EACCES":        {int64(EACCES), int64(unix.EACCES)},
	"EBUSY":         {int64(EBUSY), int64(unix.EBUSY)},
	"EEXIST":        {int64(EEXIST), int64(unix.EEXIST)},
	"ENODEV":        {int64(ENODEV), int64(unix.ENODEV)},
	"EINVAL":        {int64(EINVAL), int64(unix.EINVAL)},
	"ENFILE":        {int64(ENFILE), int64(unix.ENFILE)},
	"ELOOP":         {int64(ELOOP), int64(unix.ELOOP)},
	"EOPNOTSUPP":    {int64(EOPNOTSUPP), int64(unix.EOPNOTSUPP)},
	"EADDRINUSE":    {int64(EADDRINUSE), int64(unix.EADDRINUSE)},
	"EADDRNOTAVAIL": {int64(EADDRNOTAVAIL), int64(unix.EADDRNOTAVAIL)},
	"ENETDOWN":      {int64(ENETDOWN), int64(unix.ENETDOWN)},
	"ENETUNREACH":   {int64(ENETUNREACH), int64(unix.ENETUNREACH)},
	"ENOBUFS":       {int64(ENOBUFS), int64(unix.ENOBUFS)},
	"EHOSTUNREACH":  {int64(EHOSTUNREACH), int64(unix.EHOSTUNREACH)},
}

func TestValuesAreLinuxs(t *testing.T) {
	for name, v := range linuxValues {
		if v[0] != v[1] {
			t.Errorf("%s is %#x here, %#x in x/sys/unix", name, v[0], v[1])
		}
	}
}

// TestErrnoIsSyscalls: the model's errors and the kernel target's
// (x/sys/unix's) are one type, so errors.Is works between them.
func TestErrnoIsSyscalls(t *testing.T) {
	var e error = EEXIST
	require.ErrorIs(t, e, unix.EEXIST)
	require.ErrorIs(t, unix.EINVAL, error(EINVAL))
	require.Equal(t, "EOPNOTSUPP", ErrnoName(EOPNOTSUPP))
	require.Equal(t, "EEXIST", ErrnoName(unix.EEXIST))
}

// sources parses the package's non-test files, whatever their build tags.
func sources(t *testing.T) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	out := map[string]*ast.File{}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), n, nil, 0)
		require.NoError(t, err)
		out[n] = f
	}
	return out
}

// TestEveryConstantChecked: linuxValues lists every constant that any of
// the package's files defines, so TestValuesAreLinuxs misses none.
func TestEveryConstantChecked(t *testing.T) {
	for file, f := range sources(t) {
		for _, spec := range specs(f, token.CONST) {
			for _, id := range spec.(*ast.ValueSpec).Names {
				if _, ok := linuxValues[id.Name]; !ok {
					t.Errorf("%s: constant %s is not in linuxValues", file, id.Name)
				}
			}
		}
	}
}

// TestOtherOSErrnos checks what errno_other.go gives the other OSes: the
// same names as errno_linux.go, Linux's numbers, and the names and
// messages syscall.Errno has here.
func TestOtherOSErrnos(t *testing.T) {
	src := sources(t)
	names := func(file string) (out []string) {
		for _, spec := range specs(src[file], token.CONST) {
			out = append(out, spec.(*ast.ValueSpec).Names[0].Name)
		}
		return out
	}
	require.ElementsMatch(t, names("errno_linux.go"), names("errno_other.go"))

	for _, spec := range specs(src["errno_other.go"], token.CONST) {
		vs := spec.(*ast.ValueSpec)
		name := vs.Names[0].Name
		n, err := strconv.ParseInt(vs.Values[0].(*ast.BasicLit).Value, 0, 64)
		require.NoError(t, err, name)
		require.Equal(t, linuxValues[name][1], n, "errno_other.go's %s", name)
	}

	var table *ast.CompositeLit
	for _, spec := range specs(src["errno_other.go"], token.VAR) {
		if vs := spec.(*ast.ValueSpec); vs.Names[0].Name == "errnos" {
			table = vs.Values[0].(*ast.CompositeLit)
		}
	}
	require.NotNil(t, table, "errno_other.go has no errnos table")
	require.Len(t, table.Elts, len(names("errno_other.go")), "one errnos entry per errno")
	for _, elt := range table.Elts {
		kv := elt.(*ast.KeyValueExpr)
		key := kv.Key.(*ast.Ident).Name
		fields := kv.Value.(*ast.CompositeLit).Elts
		name, err := strconv.Unquote(fields[0].(*ast.BasicLit).Value)
		require.NoError(t, err)
		text, err := strconv.Unquote(fields[1].(*ast.BasicLit).Value)
		require.NoError(t, err)
		e := syscall.Errno(linuxValues[key][1])
		require.Equal(t, ErrnoName(e), name, "errnos[%s]'s name", key)
		require.Equal(t, e.Error(), text, "errnos[%s]'s message", key)
	}
}

// specs is the specs of f's declarations of kind tok.
func specs(f *ast.File, tok token.Token) (out []ast.Spec) {
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == tok {
			out = append(out, g.Specs...)
		}
	}
	return out
}
