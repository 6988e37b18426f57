package kmeasure

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rtnlsim/rtnlsim/internal/nscheck"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
)

func TestMain(m *testing.M) { nscheck.Main(m) }

func TestAddrs(t *testing.T) {
	a, err := Addrs(600, OneSlash8)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[4]byte]bool{}
	for _, p := range a {
		b := p.Addr().As4()
		if p.Bits() != 8 || b[0] != 10 || b[3] == 0 {
			t.Fatalf("bad address %v", p)
		}
		if seen[b] {
			t.Fatalf("%v twice", p)
		}
		seen[b] = true
	}
	if a[0].String() != "10.0.0.1/8" || a[255].String() != "10.0.1.1/8" {
		t.Fatalf("order: %v %v", a[0], a[255])
	}
	d, err := Addrs(300, Distinct24)
	if err != nil {
		t.Fatal(err)
	}
	if d[0].String() != "10.0.0.1/24" || d[299].String() != "10.1.43.1/24" {
		t.Fatalf("distinct /24s: %v %v", d[0], d[299])
	}
}

// TestSeed001Table prints the seed 001 flush times: min of K runs for
// promote 0/1 and device down/up. It runs only with RTNLSIM_KMEASURE=1
// and as root. RTNLSIM_KMEASURE_N=250,500 sets the sizes (100,200),
// RTNLSIM_KMEASURE_K the repeats (3), RTNLSIM_KMEASURE_ONLY a comma list
// of cases among p0d p0u p1d p1u p1u24 p1d24 (default: the first four),
// RTNLSIM_KMEASURE_QUIET=1 flushes with the target's subscription closed
// (Config.Quiet, kernel.Target.CloseEvents).
func TestSeed001Table(t *testing.T) {
	testseed.NeedKMeasure(t, "the seed 001 flush")
	if os.Geteuid() != 0 {
		t.Skip("kernel timing skipped: needs root to make network namespaces")
	}
	ns := []int{100, 200}
	if s := os.Getenv("RTNLSIM_KMEASURE_N"); s != "" {
		ns = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				t.Fatalf("RTNLSIM_KMEASURE_N=%q: want a comma list of sizes", s)
			}
			ns = append(ns, n)
		}
	}
	k := 3
	if s := os.Getenv("RTNLSIM_KMEASURE_K"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("RTNLSIM_KMEASURE_K=%q: want a positive number", s)
		}
		k = v
	}
	cases := map[string]Config{
		"p0d": {}, "p0u": {Up: true}, "p1d": {Promote: true}, "p1u": {Promote: true, Up: true},
		"p1d24": {Promote: true, Layout: Distinct24}, "p1u24": {Promote: true, Up: true, Layout: Distinct24},
	}
	only := []string{"p0d", "p0u", "p1d", "p1u"}
	if s := os.Getenv("RTNLSIM_KMEASURE_ONLY"); s != "" {
		only = strings.Split(s, ",")
	}
	quiet := os.Getenv("RTNLSIM_KMEASURE_QUIET") == "1"
	ctx := context.Background()
	var b strings.Builder
	fmt.Fprintf(&b, "\n| case | promote | dev | layout | quiet | N | flush min of %d | all runs (ms) | notifications in flush |\n|---|---|---|---|---|---|---|---|---|\n", k)
	var rows []*Runs
	var names []string
	for _, name := range only {
		c, ok := cases[name]
		if !ok {
			t.Fatalf("RTNLSIM_KMEASURE_ONLY: unknown case %q", name)
		}
		for _, n := range ns {
			c.N, c.Quiet = n, quiet
			rows = append(rows, &Runs{Config: c, K: k})
			names = append(names, name)
		}
	}
	if err := MinRoundRobin(ctx, rows); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		c := r.Config
		dev := "DOWN"
		if c.Up {
			dev = "UP"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %v | %d | %s | %s | %s |\n", names[i], b2i(c.Promote), dev, c.Layout, c.Quiet, c.N,
			ms(r.Best.Flush), runs(r.All), events(r.Best.Events))
	}
	t.Log(b.String())
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

func runs(all []time.Duration) string {
	s := make([]string, len(all))
	for i, d := range all {
		s[i] = fmt.Sprintf("%.1f", float64(d)/1e6)
	}
	return strings.Join(s, " ")
}

func events(m map[string]int) string {
	var s []string
	for _, k := range []string{"RTM_DELADDR", "RTM_NEWADDR", "RTM_DELROUTE", "RTM_NEWROUTE"} {
		if m[k] > 0 {
			s = append(s, fmt.Sprintf("%s %d", strings.TrimPrefix(k, "RTM_"), m[k]))
		}
	}
	return strings.Join(s, ", ")
}
