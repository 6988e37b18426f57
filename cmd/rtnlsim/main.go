// Command rtnlsim runs iproute2 batch scripts against the model of the
// Linux rtnetlink control plane or against the real kernel (in a network
// namespace of its own), and shows the resulting state in `ip -j` shape.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/rtnlsim/rtnlsim/internal/gcpace"
)

// exitError carries an exit status without printing more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	gcpace.Set()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root := newRootCmd()
	if err := root.ExecuteContext(ctx); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "rtnlsim:", err)
		os.Exit(2)
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "rtnlsim",
		Short: "A deterministic model of the Linux rtnetlink control plane, checked against the real kernel",
		Long: `rtnlsim runs iproute2 batch scripts (ip -b syntax) on a target and shows the
resulting links, addresses, routes, FIB trie and notifications in the shape
` + "`ip -j`" + ` prints them.

Targets:
  sim     the model (the default): links, IPv4 and IPv6 addresses and
          routes, rules, their notifications, and each request's cost in
          virtual time
  kernel  a fresh network namespace of this machine (needs Linux and
          root); nothing outside that namespace is touched`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCmd(), newDiffCmd(), newTrieCmd())
	root.AddCommand(newCalibrateCmd())
	root.AddCommand(newReproCmd())
	root.AddCommand(newSweepCmd(), newMergeCmd())
	root.AddCommand(newMeasureCmd())
	return root
}
