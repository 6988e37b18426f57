package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/rtnlsim/rtnlsim/internal/compare"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

func newDiffCmd() *cobra.Command {
	var show string
	cmd := &cobra.Command{
		Use:   "diff [--show links] SCRIPT|-",
		Short: "Run a script on the model and on the kernel and compare them",
		Long: `Diff runs SCRIPT on the sim target and on the kernel target (a fresh network
namespace; root needed) and compares the errno of every line and what --show
names. It exits 0 when they agree, or prints the first differences and exits
1. MAC addresses the kernel picks at random compare up to a consistent
renaming; addresses the script writes compare as they are.

The model covers link requests today, so links is the only observable diff
compares; the kernel is given time (1.2 s of quiet, then up to two re-reads)
for its deferred linkwatch work before its state is read.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sh, err := parseShow(show)
			if err != nil {
				return err
			}
			if sh.Addrs || sh.Routes || sh.FibTrie || sh.Events || sh.Cost {
				return fmt.Errorf("diff: the model covers links only so far; use --show links")
			}
			reqs, err := readScript(args[0], cmd.InOrStdin())
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), err)
				return exitError{1}
			}
			d, err := diffLinks(cmd.Context(), reqs)
			if err != nil {
				return err
			}
			return reportDiff(cmd.OutOrStdout(), d)
		},
	}
	cmd.Flags().StringVar(&show, "show", "links", "observables to compare (links)")
	return cmd
}

// diffLinks runs reqs on both targets; "" means they agree.
func diffLinks(ctx context.Context, reqs []rtnl.Request) (string, error) {
	show := rtnl.Show{Links: true}
	st := sim.New(sim.Options{})
	defer st.Close()
	simRes, err := rtnl.Run(ctx, st, reqs, show, nil)
	if err != nil {
		return "", fmt.Errorf("sim: %w", err)
	}
	kt, err := kernel.New(kernel.Options{Settle: 1200 * time.Millisecond, Sysctls: map[string]string{
		// IPv6 notifications would keep the settle wait from ending, and
		// addresses are not compared yet.
		"net/ipv6/conf/all/disable_ipv6": "1", "net/ipv6/conf/default/disable_ipv6": "1",
	}})
	if err != nil {
		return "", err
	}
	defer kt.Close()
	kRes, err := rtnl.Run(ctx, kt, reqs, show, nil)
	if err != nil {
		return "", fmt.Errorf("kernel: %w", err)
	}
	if d := compare.Errnos(simRes.Errors, kRes.Errors); d != "" {
		return d, nil
	}
	isBridge := func(name string) bool {
		d := st.Netns().ByName(name)
		return d != nil && d.Kind == rtnl.KindBridge
	}
	fixed := scriptMACs(reqs)
	for attempt := 0; ; attempt++ {
		d := compare.Links(simRes.Links, kRes.Links, fixed, isBridge)
		if d == "" || attempt == 2 {
			return d, nil
		}
		time.Sleep(time.Second) // linkwatch may still be pending on the kernel
		if kRes.State, err = kt.State(ctx, show); err != nil {
			return "", fmt.Errorf("kernel: %w", err)
		}
	}
}

// scriptMACs are the addresses the script writes: fixed points of the
// comparison, with the broadcast address.
func scriptMACs(reqs []rtnl.Request) []string {
	out := []string{"ff:ff:ff:ff:ff:ff"}
	for _, r := range reqs {
		switch op := r.Op.(type) {
		case rtnl.LinkAdd:
			if len(op.Address) > 0 {
				out = append(out, op.Address.String())
			}
		case rtnl.LinkSet:
			if len(op.Address) > 0 {
				out = append(out, op.Address.String())
			}
		}
	}
	return out
}

func reportDiff(w io.Writer, d string) error {
	if d == "" {
		fmt.Fprintln(w, "model and kernel agree (errno of every line; links)")
		return nil
	}
	fmt.Fprintln(w, d)
	return exitError{1}
}
