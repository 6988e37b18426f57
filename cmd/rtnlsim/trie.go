package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/internal/repro/seed003"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

func newTrieCmd() *cobra.Command {
	var profile string
	var stat, counters, withSeed003 bool
	cmd := &cobra.Command{
		Use:   "trie [--profile P] [--stat] [--counters] SCRIPT|-",
		Short: "Build the kernel's IPv4 LC-trie from route lines and print /proc/net/fib_trie",
		Long: `Trie reads the route add|del|replace|append|prepend lines of SCRIPT (other
lines are refused with their line number), builds the FIB trie exactly as the
kernel's net/ipv4/fib_trie.c would, and prints the /proc/net/fib_trie text.
Device and gateway words are accepted: devices get ifindexes 2, 3, ... in the
order they first appear, as if created in that order. A refused route
(EEXIST, ESRCH, ...) is reported and the rest goes on, as ip -b -force does.

--stat prints /proc/net/fib_triestat instead, --counters the work counters
(update_suffix visits, resizes, allocations); given both, the stat comes
first. --seed003 prints the seed 003
table: update_suffix work of one device's flush under the 4.2-rc3 flush and
the fixed one, for 1K to 10K prefixes (SCRIPT is not read).

Profiles, by name (run --profile's names; not a calibrate file): linux-6.18
(default); linux-6.4, which the model gives 6.18's trie (the switches
change nothing in it); linux-4.2-rc3, whose fib_table_flush pulls every
surviving leaf's suffix; linux-4.2, the fix.`,
		Example: `  printf 'route add 10.0.0.0/24 dev d0\nroute add 10.0.1.0/24 dev d0\n' | rtnlsim trie -
  rtnlsim trie --seed003`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if withSeed003 {
				fmt.Fprintln(out, strings.TrimRight(seed003.FormatTrie(seed003.TrieTable([]int{1000, 2500, 5000, 10000})), "\n"))
				return nil
			}
			if len(args) != 1 {
				return fmt.Errorf("trie needs a SCRIPT (or - for standard input)")
			}
			prof, err := sim.ParseProfile(profile)
			if err != nil {
				return err
			}
			reqs, err := readScript(args[0], cmd.InOrStdin())
			if err != nil {
				return scriptFailure(cmd, err)
			}
			fib := fibtrie.New(prof.FIB)
			devs := map[string]int{}
			for _, r := range reqs {
				if err := applyTrieRoute(fib, devs, r); err != nil {
					if name := rtnl.ErrnoName(rtnl.Errno(err)); name != "" {
						err = fmt.Errorf("%s", name)
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "line %d: %s: %v\n", r.Line, r.Text, err)
				}
			}
			if stat {
				fmt.Fprint(out, fib.RenderStat())
			}
			if counters {
				writeCounters(out, fib.Counters())
			}
			if !stat && !counters {
				fmt.Fprint(out, fib.Render())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&profile, "profile", "linux-6.18", "kernel behaviour, by name: linux-6.18 (or linux-6.4, given 6.18's trie), linux-4.2-rc3 or linux-4.2")
	cmd.Flags().BoolVar(&stat, "stat", false, "print /proc/net/fib_triestat")
	cmd.Flags().BoolVar(&counters, "counters", false, "print the work counters")
	cmd.Flags().BoolVar(&withSeed003, "seed003", false, "print the seed 003 update_suffix table")
	return cmd
}

// applyTrieRoute applies one IPv4 route line to fib as the kernel would
// receive it (sim.FibRoute: iproute2's defaults, rtm_to_fib_config's
// checks), each device named getting an ifindex of its own from 2 on.
func applyTrieRoute(fib *fibtrie.FIB, devs map[string]int, req rtnl.Request) error {
	r, ok := rtnl.RouteOf(req.Op)
	if !ok {
		return fmt.Errorf("only route add|del|replace|append|prepend lines build a trie")
	}
	if !r.Dst.Addr().Is4() {
		return fmt.Errorf("only IPv4 routes live in the fib_trie")
	}
	oif := 0
	if r.Dev != "" {
		if _, ok := devs[r.Dev]; !ok {
			devs[r.Dev] = len(devs) + 2
		}
		oif = devs[r.Dev]
	}
	_, isDel := req.Op.(rtnl.RouteDel)
	fr, err := sim.FibRoute(r, isDel, oif)
	if err != nil {
		return err
	}
	if isDel {
		return fib.Delete(fr)
	}
	flags, _ := sim.FibFlags(req.Op)
	return fib.Insert(fr, flags)
}

// writeCounters prints every counter, one per line.
func writeCounters(w io.Writer, c fibtrie.Counters) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	v := reflect.ValueOf(c)
	for i := 0; i < v.NumField(); i++ {
		fmt.Fprintf(tw, "%s\t%d\n", v.Type().Field(i).Name, v.Field(i).Uint())
	}
	tw.Flush()
}
