package seed004

// Seed 004 on this machine: reading the links and addresses of another
// network namespace, by setns() around a getifaddrs()-style read, or from
// the reading namespace by target netnsid (IFLA_TARGET_NETNSID on
// RTM_GETLINK, IFA_TARGET_NETNSID on RTM_GETADDR).
//
// Everything runs on one goroutine locked to its OS thread. The thread
// unshares a fresh "host" namespace, and from it unshares K "container"
// namespaces, each filled with D ifb devices holding A IPv4 addresses each
// (devices down, so lo has no 127.0.0.1 and no IPv6 address appears: a
// read returns exactly D*A addresses), optionally a veth whose peer lives
// in the host. The host gives every container a netnsid (RTM_NEWNSID with
// NETNSA_FD, as `ip netns set NAME ID` does). The reads run in the host;
// the thread returns to the namespace it started in before it is unlocked
// (if it cannot, it stays locked and dies with its goroutine), and the
// namespaces go away when their file descriptors close.
//
// The read is glibc's getifaddrs (sysdeps/unix/sysv/linux/ifaddrs.c):
// socket, bind, getsockname, an RTM_GETLINK dump then an RTM_GETADDR dump
// (AF_UNSPEC, rtgenmsg header), each read with recvmsg into a 4096-byte
// buffer until NLMSG_DONE, close. The netnsid read sends the same dumps
// with an ifinfomsg / ifaddrmsg header and the target netnsid, on a socket
// with NETLINK_GET_STRICT_CHK: devinet.c's inet_dump_addr parses
// IFA_TARGET_NETNSID only when cb->strict_check is set (a non-strict
// request gets the reader's own addresses; NonStrictCheck shows it).

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rtnlsim/rtnlsim/cost"
)

// KernelMethod is a way of reading another namespace.
type KernelMethod int

const (
	// KernelSetns: setns() into the container, getifaddrs (a socket of its
	// own there), setns() back. Timed from before the first setns to after
	// the second.
	KernelSetns KernelMethod = iota
	// KernelNetnsidSocket: getifaddrs with target netnsid from the host,
	// a socket opened and closed per read, as the seed's
	// netns_getifaddrs() did.
	KernelNetnsidSocket
	// KernelNetnsid: one socket in the host for all reads; each read is
	// the two dumps with the target netnsid.
	KernelNetnsid
	// KernelSetnsSeedClock is KernelSetns timed as the seed's benchmark
	// timed it: from before the setns into the container to the end of
	// getifaddrs (the setns back is not timed).
	KernelSetnsSeedClock
)

// KernelMethods lists the methods in order.
var KernelMethods = []KernelMethod{KernelSetns, KernelNetnsidSocket, KernelNetnsid, KernelSetnsSeedClock}

func (m KernelMethod) String() string {
	switch m {
	case KernelSetns, KernelNetnsidSocket, KernelNetnsid:
		sm, _ := m.simMethod()
		return sm.String()
	case KernelSetnsSeedClock:
		return "setns (seed's clock)"
	}
	return fmt.Sprintf("KernelMethod(%d)", int(m))
}

// simMethod is the model's method for m, and whether the model times the
// setns into the container alone (the seed's clock).
func (m KernelMethod) simMethod() (method Method, oneSetns bool) {
	switch m {
	case KernelSetnsSeedClock:
		return Setns, true
	case KernelNetnsidSocket:
		return NetnsidSocket, false
	case KernelNetnsid:
		return Netnsid, false
	}
	return Setns, false
}

// Config is one kernel setup and its reads.
type Config struct {
	Containers int  // K namespaces read round-robin
	Devices    int  // D ifb devices per container (besides lo)
	Addrs      int  // A IPv4 addresses per ifb device (on the veth when D is 0)
	Veth       bool // each container also has a veth whose peer is in the host
	Reads      int  // reads per method per repeat
	Repeats    int  // repeats (methods interleaved within each)
	// Progress, when set, is told each phase (setup, each repeat).
	Progress func(msg string)
}

func (c Config) String() string { return c.shape().String() }

// shape is the model's scenario for c.
func (c Config) shape() Shape {
	return Shape{Containers: c.Containers, Devices: c.Devices, Addrs: c.Addrs, Veth: c.Veth}
}

// KernelRead is what one read saw.
type KernelRead struct {
	Links     int // RTM_NEWLINK messages
	Addrs     int // RTM_NEWADDR messages
	LinkRecvs int // recvmsg calls of the link dump (NLMSG_DONE's included)
	AddrRecvs int // recvmsg calls of the address dump
	LinkBytes int // bytes of the link dump
	AddrBytes int // bytes of the address dump
	// LinkSizes are the sizes of the first RTM_NEWLINK messages, in dump
	// order; AddrSize the size of the first RTM_NEWADDR.
	LinkSizes [4]int
	AddrSize  int
}

// Result is one method's timings for a config.
type Result struct {
	Method KernelMethod `json:"method"`
	// PerRead holds the mean time of one read in each repeat.
	PerRead []time.Duration `json:"per_read_ns"`
	Min     time.Duration   `json:"min_ns"`
	Median  time.Duration   `json:"median_ns"`
	// Read is what the first read of the last repeat returned (every read
	// is checked to return the container's links and addresses).
	Read KernelRead `json:"read"`
}

// Measurement is a config's results, one per method.
type Measurement struct {
	Config  Config   `json:"config"`
	Results []Result `json:"results"`
	// SetupTime is the untimed setup (namespaces, devices, addresses).
	SetupTime time.Duration `json:"setup_ns"`
	// HostIDs is how many ids the host's netns_ids holds after the reads
	// (an RTM_GETNSID dump, `ip netns list-id`): the K container ids, and
	// with veths one more, the host's own (peernet2id_alloc(host, host)).
	HostIDs int `json:"host_ids"`
}

// Result returns m's result for method.
func (m Measurement) Result(method KernelMethod) (Result, bool) {
	for _, r := range m.Results {
		if r.Method == method {
			return r, true
		}
	}
	return Result{}, false
}

func (c Config) validate() error {
	switch {
	case c.Containers < 1:
		return errors.New("kmeasure seed 004: need at least one container")
	case c.Devices < 0 || c.Addrs < 0:
		return errors.New("kmeasure seed 004: negative devices or addresses")
	case c.Devices > MaxDevices:
		return fmt.Errorf("kmeasure seed 004: at most %d devices per container", MaxDevices)
	case c.Addrs > MaxAddrs:
		return fmt.Errorf("kmeasure seed 004: at most %d addresses per device", MaxAddrs)
	case c.Reads < 1 || c.Repeats < 1:
		return errors.New("kmeasure seed 004: reads and repeats must be at least 1")
	}
	return nil
}

// seed004Want is what a read of a container must return.
func seed004Want(c Config) (links, addrs int) {
	links = 1 + c.Devices
	addrs = c.Devices * c.Addrs
	if c.Veth {
		links++
		if c.Devices == 0 {
			addrs = c.Addrs
		}
	}
	return links, addrs
}

// ParseSize parses "K:D:A" or "K:D:A:veth" (containers, ifb devices
// per container, addresses per device, and a veth per container).
func ParseSize(s string) (Config, error) {
	f := strings.Split(strings.TrimSpace(s), ":")
	if len(f) < 3 || len(f) > 4 || (len(f) == 4 && f[3] != "veth") {
		return Config{}, fmt.Errorf("seed 004 size %q: want K:D:A or K:D:A:veth", s)
	}
	var v [3]int
	for i := range v {
		n, err := strconv.Atoi(f[i])
		if err != nil || n < 0 {
			return Config{}, fmt.Errorf("seed 004 size %q: %q is not a count", s, f[i])
		}
		v[i] = n
	}
	c := Config{Containers: v[0], Devices: v[1], Addrs: v[2], Veth: len(f) == 4, Reads: 1, Repeats: 1}
	return c, c.validate()
}

// SimCase is the model's case for a config and method.
func SimCase(c Config, m KernelMethod) Case {
	sc := Case{Shape: c.shape()}
	sc.Method, sc.OneSetns = m.simMethod()
	return sc
}

// KernelRow is a measured read beside the model's.
type KernelRow struct {
	Config   Config        `json:"config"`
	Method   KernelMethod  `json:"method"`
	Measured time.Duration `json:"measured_ns"` // minimum of the repeats' means
	Median   time.Duration `json:"median_ns"`
	ModelNs  float64       `json:"model_ns"`
	Fitted   bool          `json:"fitted"` // used in the fit
	ErrPct   float64       `json:"error_pct"`
}

// FitPredict fits the seed 004 prices (Fit) to the
// minima of the measurements whose config fit selects, and returns the
// prices and every measurement beside the model's time under them.
func FitPredict(ms []Measurement, fit func(Config) bool) (cost.Params, []KernelRow, error) {
	cache := Cache{}
	var rows []Measured
	for _, m := range ms {
		if !fit(m.Config) {
			continue
		}
		for _, r := range m.Results {
			rows = append(rows, Measured{Case: SimCase(m.Config, r.Method), Ns: float64(r.Min)})
		}
	}
	p, err := Fit(cost.Params{}, rows, cache)
	if err != nil {
		return p, nil, err
	}
	var out []KernelRow
	for _, m := range ms {
		for _, r := range m.Results {
			cn, err := cache.Counts(SimCase(m.Config, r.Method))
			if err != nil {
				return p, nil, err
			}
			ns := cn.Ns(p)
			out = append(out, KernelRow{Config: m.Config, Method: r.Method, Measured: r.Min, Median: r.Median,
				ModelNs: ns, Fitted: fit(m.Config), ErrPct: 100 * (ns - float64(r.Min)) / float64(r.Min)})
		}
	}
	return p, out, nil
}

// FitGrid and PredictGrid are the default sizes: the prices
// are fitted at the first and checked at the second (K:D:A[:veth]).
var (
	FitGrid     = []string{"1:1:1", "1:1:100", "1:10:10", "1:1:10:veth", "1000:1:10:veth"}
	PredictGrid = []string{"1:1:10", "1:1:1000", "1:3:30", "100:1:10", "1000:1:10", "100:1:10:veth", "300:1:10:veth"}
)
