package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
	"github.com/rtnlsim/rtnlsim/internal/outpath"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

type measureFlags struct {
	setup   string
	threads int
	runs    int
	profile string
	json    string
}

func newMeasureCmd() *cobra.Command {
	var f measureFlags
	cmd := &cobra.Command{
		Use:   "measure [flags] SCRIPT",
		Short: "Time a script on this machine's kernel through iproute2 and on the model, side by side",
		Long: `Measure times SCRIPT on this machine's kernel the way users run it, through
iproute2, and on the model (Linux, root).

Each of --runs K kernel runs makes a fresh network namespace, applies
--setup FILE there through the kernel target (sysctl lines included; a
refused line fails the run as FILE:line), waits for its notifications to
settle and until no earlier namespace is being dismantled (the kernel
cleans a released namespace up under rtnl_lock), then splits SCRIPT into
--threads N contiguous slices, writes each as an ip -b batch file, and
starts N "nsenter --net=NETNS ip -b SLICE" processes together: the time is from the start until the last one exits.
A failing ip fails the run with what it said. K runs of empty batch files,
timed the same way, show what process start and exit alone take; that is
reported, not subtracted.

SCRIPT must be lines ip -b can run: the model's extensions (sysctl, link del
list) and per-line options (-4, -6) are refused up front, by line number;
put sysctl lines in the setup. Namespaces are made in the setup too
("netns add NAME"; netns verbs in SCRIPT are refused): while SCRIPT runs,
each is mounted in /run/netns under a name of its own, which SCRIPT's
"netns NAME" words are rewritten to, so SCRIPT can move devices there.

The model runs the same setup and SCRIPT K times on a sim target with
--profile: its predicted time (virtual, SCRIPT alone, over N threads, as
run --setup --show cost --threads N prices it, plus each ip process's
name lookups, one per device name it has not resolved, and each line's
send and ack), the error against the
kernel's median, and its own wall time to apply SCRIPT (setup excluded),
with the kernel's median over it ("model faster by").

Times are medians with min..max over the K runs; the machine's load moves
them.`,
		Example: `  sudo rtnlsim measure --setup devices.ip --runs 5 group-move.ip
  sudo rtnlsim measure --threads 4 --json out.json my.script`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.threads < 1 {
				return fmt.Errorf("--threads must be at least 1")
			}
			if f.runs < 1 {
				return fmt.Errorf("--runs must be at least 1")
			}
			if err := outpath.Check("--json", f.json); err != nil {
				return err
			}
			p, err := sim.LoadProfile(f.profile)
			if err != nil {
				return fmt.Errorf("--profile: %w", err)
			}
			for _, u := range p.Unmodelled() {
				fmt.Fprintf(cmd.ErrOrStderr(), "rtnlsim: note: profile %s: %s\n", p.Name, u)
			}
			if args[0] == "-" || f.setup == "-" {
				return fmt.Errorf("measure reads files, not standard input")
			}
			main, err := readScript(args[0], nil)
			if err != nil {
				return scriptFailure(cmd, err)
			}
			if len(main) == 0 {
				return fmt.Errorf("%s has no request lines: nothing to time", args[0])
			}
			var setup []rtnl.Request
			if f.setup != "" {
				if setup, err = readScript(f.setup, nil); err != nil {
					return scriptFailure(cmd, err)
				}
			}
			if _, err := ipbatch.Lines(main); err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			r, err := ipbatch.Measure(cmd.Context(), ipbatch.Scenario{
				Name: strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0])), SetupName: f.setup,
				Setup: setup, Main: main,
			}, ipbatch.Options{Threads: f.threads, Runs: f.runs, Profile: p, Progress: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			if p.File != "" {
				r.Profile = p.File
			}
			warnRefused(cmd, r)
			if err := ipbatch.WriteTable(cmd.OutOrStdout(), []ipbatch.Report{r}); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), pricesNote(p))
			if f.json != "" {
				return writeJSON(f.json, []ipbatch.Report{r})
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&f.setup, "setup", "", "script run first in each fresh namespace (and on the model), not timed")
	cmd.Flags().IntVar(&f.threads, "threads", 1, "split SCRIPT, in order, over N ip processes (and N user threads in the model)")
	cmd.Flags().IntVar(&f.runs, "runs", 5, "K: runs on the kernel (each in a fresh namespace), of empty batches, and of the model")
	cmd.Flags().StringVar(&f.profile, "profile", sim.DefaultProfile, "the model's kernel profile, or a profile file written by rtnlsim calibrate (as run --profile)")
	cmd.Flags().StringVar(&f.json, "json", "", "also write the report as JSON to FILE")
	return cmd
}

// warnRefused says which lines the model refused: the kernel ran every
// line (ip -b stops at a refusal), so the two did not run the same.
func warnRefused(cmd *cobra.Command, r ipbatch.Report) {
	for _, l := range r.ModelSetupRefused {
		fmt.Fprintf(cmd.ErrOrStderr(), "rtnlsim: %s: the model refused setup %s\n", r.Name, l)
	}
	for _, l := range r.ModelMainRefused {
		fmt.Fprintf(cmd.ErrOrStderr(), "rtnlsim: %s: the model refused %s, which the kernel ran\n", r.Name, l)
	}
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
