package main

import (
	"github.com/spf13/cobra"
)

func newDiffCmd() *cobra.Command {
	var show string
	cmd := &cobra.Command{
		Use:   "diff [--show ...] SCRIPT|-",
		Short: "Run a script on the model and on the kernel and compare what they show",
		Long: `Diff runs SCRIPT on the sim target and on the kernel target and exits 0 when
they agree on everything shown, or prints the differences and exits 1.
It needs the sim target, which is not built yet.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := parseShow(show); err != nil {
				return err
			}
			return errNoSim
		},
	}
	cmd.Flags().StringVar(&show, "show", "links,addrs,routes", "observables to compare")
	return cmd
}
