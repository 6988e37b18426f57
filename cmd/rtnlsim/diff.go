package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/rtnlsim/rtnlsim/internal/differ"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

func newDiffCmd() *cobra.Command {
	var show, profile string
	cmd := &cobra.Command{
		Use:   "diff [--show links,events] [--profile linux-6.18] SCRIPT|-",
		Short: "Run a script on the model and on the kernel and compare them",
		Long: `Diff runs SCRIPT on the sim target and on the kernel target (a fresh network
namespace; root needed) and compares the errno of every line and what --show
names. It exits 0 when they agree, or prints the first difference and exits 1.

The model covers link requests today: diff compares the links and the link
and bridge notifications, request by request. The kernel runs first, each
request ending only when the linkwatch work it caused has run (so every
notification has its request); the MAC addresses it picked at random are
given to the model, so addresses compare exactly.

The kernel side is this machine's kernel, so --profile takes linux-6.18
without switches only; other profiles are for rtnlsim run --target sim.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sh, err := parseShow(show)
			if err != nil {
				return err
			}
			p, err := sim.ParseProfile(profile)
			if err != nil {
				return fmt.Errorf("--profile: %w", err)
			}
			if err := p.KernelCompatible(); err != nil {
				return fmt.Errorf("diff --profile: %w", err)
			}
			if sh.Addrs || sh.Routes || sh.FibTrie || sh.Cost {
				return fmt.Errorf("diff: the model covers links and their notifications only so far; use --show links,events")
			}
			reqs, err := readScript(args[0], cmd.InOrStdin())
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), err)
				return exitError{1}
			}
			d, err := diffLinks(cmd.Context(), p, reqs)
			if err != nil {
				return err
			}
			return reportDiff(cmd.OutOrStdout(), d)
		},
	}
	cmd.Flags().StringVar(&show, "show", "links,events", "observables to compare (links,events: both are always compared)")
	cmd.Flags().StringVar(&profile, "profile", sim.DefaultProfile, "the profile of both sides: linux-6.18 (this machine's kernel) only")
	return cmd
}

// diffLinks runs reqs on the kernel, then on the model, and compares
// errnos, links and link notifications (internal/differ, which the
// property suite uses too); "" means they agree.
func diffLinks(ctx context.Context, p sim.Profile, reqs []rtnl.Request) (string, error) {
	out, err := differ.Links(ctx, reqs, p.Options(0))
	if err != nil {
		return "", err
	}
	if out.Diff != "" && out.TooSlow() {
		return fmt.Sprintf("%s\n(the kernel run took %v, longer than a bridge's %v forward delay, whose timer notifies ports: the model has no wall clock; try again on a quieter machine)",
			out.Diff, out.KernelWall.Round(time.Millisecond), differ.BridgeForwardDelay), nil
	}
	return out.Diff, nil
}

func reportDiff(w io.Writer, d string) error {
	if d == "" {
		fmt.Fprintln(w, "model and kernel agree (errno of every line; links; link notifications)")
		return nil
	}
	fmt.Fprintln(w, d)
	return exitError{1}
}
