package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rtnlsim/rtnlsim/internal/differ"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

func newDiffCmd() *cobra.Command {
	var show, profile string
	var ipv6 bool
	cmd := &cobra.Command{
		Use:   "diff [--show links,addrs,routes,rules,fibtrie,events] [--ipv6] [--profile linux-6.18] SCRIPT|-",
		Short: "Run a script on the model and on the kernel and compare them",
		Long: `Diff runs SCRIPT on the kernel target (a fresh network namespace; root
needed) and then on the sim target, and compares the errno of every line and
what --show names, by default everything: the links (every field; MAC
addresses the kernel picked at random up to a consistent renaming), the
addresses of every device (addr_info exactly, in order), the routes of all
tables (exactly, in order), the policy rules, /proc/net/fib_trie (text for
text), and the notifications of every family (link, bridge, inet and inet6
addresses and routes) request by request. It exits 0 when they agree.
Otherwise it prints the difference of the earliest request and exits 1:
when that is an errno, the errno of every line that differs; when
notifications, that request's; the state is compared at the end.

The kernel runs first, each request ending only when the linkwatch and IPv6
DAD work it caused has run (so every notification has its request); the MAC
addresses it picked at random are given to the model. Both namespaces start
with IPv6 off (net.ipv6.conf.{all,default}.disable_ipv6=1) unless --ipv6 is
given: then UP devices get their link-local addresses and routes on both
sides, and those are compared too. DAD of a device that does ARP takes the
kernel a second or two; a script can write
net.ipv6.conf.{all,default}.accept_dad=0 to skip it.

The kernel side is this machine's kernel, so --profile takes linux-6.18
without switches only; other profiles are for rtnlsim run --target sim.
That kernel has no list delete: "link del list" is the kernel target's
emulation on both sides (names resolved first, then one RTM_DELLINK per
device), so a diff holds the kernel to what each of those requests does,
not to how the line as a whole behaves.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sh, err := parseShow(show)
			if err != nil {
				return err
			}
			p, err := sim.LoadProfile(profile)
			if err != nil {
				return fmt.Errorf("--profile: %w", err)
			}
			if err := p.KernelCompatible(); err != nil {
				return fmt.Errorf("diff --profile: %w", err)
			}
			if sh.Cost {
				return fmt.Errorf("diff: cost is the model's alone; --show takes links,addrs,routes,rules,fibtrie,events")
			}
			reqs, err := readScript(args[0], cmd.InOrStdin())
			if err != nil {
				return scriptFailure(cmd, err)
			}
			what := differ.What{Links: sh.Links, Addrs: sh.Addrs, Routes: sh.Routes, Rules: sh.Rules, FibTrie: sh.FibTrie, Events: sh.Events, IPv6: ipv6}
			d, err := diffRun(cmd.Context(), p, reqs, what)
			if err != nil {
				return err
			}
			return reportDiff(cmd.OutOrStdout(), d, show)
		},
	}
	cmd.Flags().StringVar(&show, "show", "links,addrs,routes,rules,fibtrie,events", "observables to compare besides the errno of every line")
	cmd.Flags().BoolVar(&ipv6, "ipv6", false, "keep IPv6 on in both namespaces and compare the link-local addresses and routes")
	cmd.Flags().StringVar(&profile, "profile", sim.DefaultProfile, "the profile of both sides: linux-6.18 (this machine's kernel) only, by name or as a profile file from rtnlsim calibrate")
	return cmd
}

// diffRun runs reqs on the kernel, then on the model, and compares errnos
// and what names (internal/differ, which the property suites use too);
// "" means they agree.
func diffRun(ctx context.Context, p sim.Profile, reqs []rtnl.Request, what differ.What) (string, error) {
	out, err := differ.Run(ctx, reqs, p.Options(0), what)
	if err != nil {
		return "", err
	}
	if out.Diff != "" && out.TooSlow() {
		return fmt.Sprintf("%s\n(the kernel run took %v, longer than the %v after which a bridge timer of the script (forward delay, STP hello) may fire and notify ports: the model has no wall clock; try again on a quieter machine)",
			out.Diff, out.KernelWall.Round(time.Millisecond), out.TimerAfter()), nil
	}
	return out.Diff, nil
}

func reportDiff(w io.Writer, d, show string) error {
	if d == "" {
		what := "errno of every line"
		if strings.Trim(show, ", ") != "" {
			what += "; " + show
		}
		fmt.Fprintf(w, "model and kernel agree (%s)\n", what)
		return nil
	}
	fmt.Fprintln(w, d)
	return exitError{1}
}
