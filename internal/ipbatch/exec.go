package ipbatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Exec starts one `nsenter --net=NETNS ip -b FILE` per file, all
// together, and returns the time from the first start until the last
// exit. A process that exits non-zero or says "Command failed" (ip -b
// stops at the first refused line) fails it with what it said.
func Exec(ctx context.Context, netns string, files []string) (time.Duration, error) {
	return execUnder(ctx, nil, netns, files)
}

// execUnder is Exec with each process started as wrap's command followed
// by nsenter's (e.g. perf record ... --); nil wraps nothing.
func execUnder(ctx context.Context, wrap []string, netns string, files []string) (time.Duration, error) {
	if netns == "" {
		return 0, errors.New("ipbatch: no namespace path")
	}
	nsenter, err := exec.LookPath("nsenter")
	if err != nil {
		return 0, fmt.Errorf("ipbatch: %w (util-linux)", err)
	}
	ip, err := exec.LookPath("ip")
	if err != nil {
		return 0, fmt.Errorf("ipbatch: %w (iproute2)", err)
	}
	cmds := make([]*exec.Cmd, len(files))
	errbufs := make([]bytes.Buffer, len(files))
	for i, f := range files {
		args := append(slices.Clone(wrap), nsenter, "--net="+netns, ip, "-b", f)
		cmds[i] = exec.CommandContext(ctx, args[0], args[1:]...)
		cmds[i].Stderr = &errbufs[i]
	}
	start := time.Now()
	started := 0
	var errs []error
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			errs = append(errs, fmt.Errorf("ipbatch: start %s: %w", c, err))
			break
		}
		started++
	}
	for i, c := range cmds[:started] {
		err := c.Wait()
		msg := strings.TrimSpace(errbufs[i].String())
		if err != nil || strings.Contains(msg, "Command failed") {
			if msg == "" && err != nil {
				msg = err.Error()
			}
			errs = append(errs, fmt.Errorf("ip -b %s: %s", files[i], msg))
		}
	}
	d := time.Since(start)
	return d, errors.Join(errs...)
}

// KernelRun is one run in a fresh namespace (kernel.New): the setup
// applied through the kernel target (sysctl lines too), a wait until its
// notifications settle, the target's subscription closed (no listener
// while ip runs), the namespaces the setup named mounted where ip finds
// them (mountNetns), a wait until no namespace is being dismantled (the
// previous run's: kernel.WaitNetnsCleanup), then the batch files timed by
// Exec. A refused setup line fails the run, named as setupName:line.
func KernelRun(ctx context.Context, setup []rtnl.Request, setupName string, files []string) (time.Duration, error) {
	return KernelRunUnder(ctx, nil, setup, setupName, files)
}

// KernelRunUnder is KernelRun with the batch processes started under
// wrap (a command and its arguments that runs the rest of its command
// line, such as "perf record -o FILE --"); the time includes wrap's own.
func KernelRunUnder(ctx context.Context, wrap []string, setup []rtnl.Request, setupName string, files []string) (time.Duration, error) {
	kt, err := kernel.New(kernel.Options{})
	if err != nil {
		return 0, err
	}
	defer kt.Close()
	for _, r := range setup {
		if err := kt.Apply(ctx, r); err != nil {
			return 0, fmt.Errorf("%s:%d (%s): %w", setupName, r.Line, r.Text, err)
		}
	}
	// Events returns once the stream has been quiet for a while; lost
	// notifications (a storm overran the socket) do not matter here.
	_, _ = kt.Events(ctx)
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	kt.CloseEvents()
	unmount, err := mountNetns(kt.NamedNetnsPaths())
	defer unmount()
	if err != nil {
		return 0, err
	}
	if _, err := kernel.WaitNetnsCleanup(ctx, kernel.NetnsCleanupLimit); err != nil {
		return 0, err
	}
	return execUnder(ctx, wrap, kt.NetnsPath(), files)
}
