package kmeasure

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Scenario is a generic kernel measurement: requests that prepare a fresh
// namespace, then requests timed as one or more concurrent user threads.
type Scenario struct {
	Name string
	// Sysctls are written in the fresh namespace before Setup, e.g.
	// "net.ipv6.conf.all.disable_ipv6": "1" (dotted keys, or paths
	// relative to /proc/sys with slashes).
	Sysctls map[string]string
	// Setup runs first, untimed, over the target's own socket.
	Setup []rtnl.Request
	// Timed holds one slice per user thread. Each thread sends its
	// requests in order over a rtnetlink socket of its own, all threads
	// starting together; the time is from the start to the last thread's
	// last reply.
	Timed [][]rtnl.Request
}

// Requests counts the timed requests.
func (s Scenario) Requests() int {
	n := 0
	for _, th := range s.Timed {
		n += len(th)
	}
	return n
}

// SysctlPath turns a Scenario.Sysctls key (dotted, or a path) into a path
// relative to /proc/sys.
func SysctlPath(k string) string {
	if strings.Contains(k, "/") {
		return strings.TrimPrefix(k, "/proc/sys/")
	}
	return strings.ReplaceAll(k, ".", "/")
}

// RunScenario measures s in a fresh namespace (kernel.New makes it): the
// sysctls, the Setup requests, a wait for their notifications to settle
// and for any namespace being dismantled (kernel.WaitNetnsCleanup),
// then, with the event subscription closed (kernel.Target.CloseEvents, as
// Measure does, so no listener is joined to any group), the Timed threads
// run concurrently, each on its own socket. A refused request fails the
// measurement.
func RunScenario(ctx context.Context, s Scenario) (time.Duration, error) {
	if len(s.Timed) == 0 {
		return 0, fmt.Errorf("kmeasure: scenario %s: no timed thread", s.Name)
	}
	sys := map[string]string{}
	for k, v := range s.Sysctls {
		sys[SysctlPath(k)] = v
	}
	kt, err := kernel.New(kernel.Options{Sysctls: sys})
	if err != nil {
		return 0, fmt.Errorf("kmeasure: scenario %s: %w", s.Name, err)
	}
	defer kt.Close()
	for i, r := range s.Setup {
		if r.Line == 0 {
			r.Line = i + 1
		}
		if err := kt.Apply(ctx, r); err != nil {
			return 0, fmt.Errorf("kmeasure: scenario %s: setup request %d (%s): %w", s.Name, i+1, RequestText(r), err)
		}
	}
	// Let the setup's deferred work (linkwatch, addrconf) land before the
	// clock starts.
	if _, err := kt.Events(ctx); err != nil {
		return 0, fmt.Errorf("kmeasure: scenario %s: setup events: %w", s.Name, err)
	}
	kt.CloseEvents()
	// Nor while an earlier namespace is dismantled: that takes rtnl_lock.
	if _, err := kernel.WaitNetnsCleanup(ctx, kernel.NetnsCleanupLimit); err != nil {
		return 0, fmt.Errorf("kmeasure: scenario %s: %w", s.Name, err)
	}

	threads := make([]*kernel.Thread, len(s.Timed))
	defer func() {
		for _, th := range threads {
			if th != nil {
				th.Close()
			}
		}
	}()
	for i := range threads {
		if threads[i], err = kt.NewThread(); err != nil {
			return 0, fmt.Errorf("kmeasure: scenario %s: thread %d: %w", s.Name, i, err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(threads))
	ends := make([]time.Time, len(threads))
	startc := make(chan struct{})
	for i := range threads {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-startc
			for j, r := range s.Timed[i] {
				if err := threads[i].Apply(ctx, r); err != nil {
					errs[i] = fmt.Errorf("kmeasure: scenario %s: thread %d request %d (%s): %w", s.Name, i, j+1, RequestText(r), err)
					break
				}
			}
			ends[i] = time.Now()
		}(i)
	}
	start := time.Now()
	close(startc)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	var d time.Duration
	for _, e := range ends {
		d = max(d, e.Sub(start))
	}
	return d, nil
}

// RequestText names r in an error: its script line, else its verb.
func RequestText(r rtnl.Request) string {
	if r.Text != "" {
		return r.Text
	}
	return r.Op.Verb()
}

// RunScenarioMin runs s k times, each in a fresh namespace, and returns the
// shortest time and every time in run order: on a shared machine the
// minimum is the least disturbed run. after, when set, is called after
// each run.
func RunScenarioMin(ctx context.Context, s Scenario, k int, after func(run int, d time.Duration)) (time.Duration, []time.Duration, error) {
	if k < 1 {
		return 0, nil, errors.New("kmeasure: k must be at least 1")
	}
	var best time.Duration
	all := make([]time.Duration, 0, k)
	for i := 0; i < k; i++ {
		d, err := RunScenario(ctx, s)
		if err != nil {
			return best, all, err
		}
		all = append(all, d)
		if i == 0 || d < best {
			best = d
		}
		if after != nil {
			after(i, d)
		}
	}
	return best, all, nil
}
