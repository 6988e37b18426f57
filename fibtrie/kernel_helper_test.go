package fibtrie

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// kernelTrieFunc is the seam to a real kernel: replay ops in a fresh network
// namespace that has one ifb device d0 (ifindex 2, up, no address) and lo
// down, and return /proc/net/fib_trie and /proc/net/fib_triestat of it.
// It returns an error when the ops the kernel refused, or the errnos it
// refused them with, differ from the ops whose WantErr is non-nil and
// their errnos. kernelTrie implements it with the kernel target.
type kernelTrieFunc func(ops []RouteOp) (fibTrie, fibTrieStat string, err error)

// kernelIfindex is d0's ifindex in the namespace: lo is 1.
const kernelIfindex = 2

// requireKernel skips unless root on Linux; with RTNLSIM_REQUIRE_KERNEL=1
// it fails.
func requireKernel(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "linux" && os.Geteuid() == 0 {
		if _, err := exec.LookPath("unshare"); err == nil {
			if _, err := exec.LookPath("ip"); err == nil {
				return
			}
		}
	}
	msg := "kernel differential needs Linux, root, unshare, nsenter and ip"
	if os.Getenv("RTNLSIM_REQUIRE_KERNEL") == "1" {
		t.Fatal(msg + " (RTNLSIM_REQUIRE_KERNEL=1)")
	}
	t.Skip(msg)
}

// scopeWord is ip's name for a scope: the /proc name, except that ip says
// global for universe (and a number for nowhere).
func scopeWord(s Scope) string {
	switch s {
	case ScopeUniverse:
		return "global"
	case ScopeSite, ScopeLink, ScopeHost:
		return s.ProcName()
	}
	return strconv.Itoa(int(s))
}

// ipBatchLine renders op in `ip -b` syntax with every field explicit, so the
// kernel stores exactly what the model was given.
func ipBatchLine(op RouteOp) string {
	r := op.Route
	var b strings.Builder
	fmt.Fprintf(&b, "route %s", op.Kind)
	if r.Type != TypeUnspec {
		fmt.Fprintf(&b, " %s", strings.ToLower(r.Type.ProcName()))
	}
	fmt.Fprintf(&b, " %s/%d table %d", FormatIP(r.Dst), r.Len, normTable(r.Table))
	if r.TOS != 0 {
		fmt.Fprintf(&b, " tos 0x%02x", r.TOS)
	}
	fmt.Fprintf(&b, " metric %d", r.Priority)
	if r.Protocol != 0 {
		fmt.Fprintf(&b, " proto %d", r.Protocol)
	}
	if op.Kind != OpDel || r.Scope != ScopeAny {
		fmt.Fprintf(&b, " scope %s", scopeWord(r.Scope))
	}
	if r.OIF == kernelIfindex {
		b.WriteString(" dev d0")
	}
	if r.Gateway != 0 {
		fmt.Fprintf(&b, " via %s", FormatIP(r.Gateway))
	}
	if r.PrefSrc != 0 {
		fmt.Fprintf(&b, " src %s", FormatIP(r.PrefSrc))
	}
	return b.String()
}

// kernelTrie implements kernelTrieFunc with the project's kernel target.
func kernelTrie(ops []RouteOp) (string, string, error) { return kernelTrieThen(ops, nil) }

// kernelTrieThen replays ops through the kernel target (rtnetlink, in a
// namespace of its own) as script lines, then the extra lines (link del as
// script lines; `rule add`, which the script language lacks, with iproute2
// inside the same namespace); those must succeed. It reads the namespace's
// /proc/net/fib_trie and fib_triestat back.
func kernelTrieThen(ops []RouteOp, then []string) (string, string, error) {
	ctx := context.Background()
	tg, err := kernel.New(kernel.Options{})
	if err != nil {
		return "", "", err
	}
	defer tg.Close()
	apply := func(line string) error {
		reqs, err := script.ParseString(line)
		if err != nil {
			return fmt.Errorf("%q: %w", line, err)
		}
		for _, r := range reqs {
			if err := tg.Apply(ctx, r); err != nil {
				return err
			}
		}
		return nil
	}
	for _, l := range []string{"link add d0 type ifb", "link set d0 up"} {
		if err := apply(l); err != nil {
			return "", "", err
		}
	}
	// got and want are the refused lines as "LINE:ERRNO".
	var got, want []string
	var refusals []string
	for i, op := range ops {
		line := ipBatchLine(op)
		if err := apply(line); err != nil {
			if rtnl.Errno(err) == 0 {
				return "", "", err
			}
			got = append(got, refusal(i+1, err))
			if len(refusals) < 20 {
				refusals = append(refusals, fmt.Sprintf("%d: %s: %v", i+1, line, err))
			}
		}
		if op.WantErr != nil {
			want = append(want, refusal(i+1, op.WantErr))
		}
	}
	for _, l := range then {
		if strings.HasPrefix(l, "rule ") {
			out, err := exec.Command("nsenter", append([]string{"--net=" + tg.NetnsPath(), "ip"}, strings.Fields(l)...)...).CombinedOutput()
			if err != nil {
				return "", "", fmt.Errorf("ip %s: %v: %s", l, err, out)
			}
			continue
		}
		if err := apply(l); err != nil {
			return "", "", fmt.Errorf("%s: %w", l, err)
		}
	}
	st, err := tg.State(ctx, rtnl.Show{FibTrie: true})
	if err != nil {
		return "", "", err
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		return st.FibTrie, st.FibTrieStat, fmt.Errorf("kernel refused lines %v, model refused %v (first difference: kernel %v, model %v); the kernel said:\n%s",
			trimList(got), trimList(want), trimList(got[i:min(i+1, len(got))]), trimList(want[i:min(i+1, len(want))]), strings.Join(refusals, "\n"))
	}
	return st.FibTrie, st.FibTrieStat, nil
}

// refusal is line's refusal with its errno, as the comparison lists it.
func refusal(line int, err error) string {
	return fmt.Sprintf("%d:%s", line, rtnl.ErrnoName(rtnl.Errno(err)))
}

func trimList(l []string) string {
	if len(l) > 30 {
		return fmt.Sprint(l[:30]) + "..."
	}
	return fmt.Sprint(l)
}

// firstDiff describes where two texts first differ, with context.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			lo := max(0, i-6)
			ctx := strings.Join(w[lo:min(i, len(w))], "\n")
			return fmt.Sprintf("line %d:\n  kernel: %q\n  model:  %q\ncontext (kernel):\n%s", i+1, wl, gl, ctx)
		}
	}
	return "identical"
}

// compareWithKernel replays ops on a fresh model, recording its answers in
// WantErr, runs after (if not nil) on it, and compares its /proc text with
// the kernel's for the same ops. checkEach runs the invariant check after
// every op (quadratic, so only for small cases).
func compareWithKernel(kernel kernelTrieFunc, ops []RouteOp, checkEach bool, after func(f *FIB)) error {
	f := New(Linux618())
	for i := range ops {
		ops[i].WantErr = ops[i].Apply(f)
		if checkEach {
			if err := f.Check(false); err != nil {
				return fmt.Errorf("model invariant after op %d (%s): %v", i+1, ipBatchLine(ops[i]), err)
			}
		}
	}
	if after != nil {
		after(f)
	}
	if err := f.Check(false); err != nil {
		return fmt.Errorf("model invariant at end: %v", err)
	}
	kt, ks, err := kernel(ops)
	if err != nil {
		return err
	}
	if mt := f.Render(); mt != kt {
		return fmt.Errorf("/proc/net/fib_trie differs at %s", firstDiff(kt, mt))
	}
	if ms := f.RenderStat(); ms != ks {
		return fmt.Errorf("/proc/net/fib_triestat differs at %s", firstDiff(ks, ms))
	}
	return nil
}
