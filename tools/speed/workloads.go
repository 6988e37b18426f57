package main

import (
	"fmt"
	"math"
	"net/netip"
	"strings"

	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
)

// workload is one side-by-side benchmark: a setup and a main script, the
// main one split over threads ip processes (0: one).
type workload struct {
	name, setup, main string
	threads           int
}

// sizes are the workloads' sizes at scale 1.
var sizes = struct {
	flushA, flushB, delPrimary, routes, delAddr, group, del int
}{2000, 4000, 16000, 100000, 2500, 2000, 2000}

// scaled is n times scale, at least 2.
func scaled(n int, scale float64) int {
	return max(2, int(math.Round(float64(n)*scale)))
}

// noIPv6 is seed 001's start: IPv6 off, so that the device carries IPv4
// addresses only (internal/repro/seed001).
const noIPv6 = "sysctl net.ipv6.conf.all.disable_ipv6=1\nsysctl net.ipv6.conf.default.disable_ipv6=1\n"

// slash8Setup is seed 001's setup: device i0 with promote_secondaries,
// up, holding n addresses of one /8.
func slash8Setup(n int) string {
	var b strings.Builder
	b.WriteString(noIPv6)
	b.WriteString("link add i0 type ifb\nsysctl net.ipv4.conf.i0.promote_secondaries=1\nlink set i0 up\n")
	for i := range n {
		fmt.Fprintf(&b, "addr add %s dev i0\n", kmeasure.Slash8Addr(i))
	}
	return b.String()
}

// upIfbs adds n ifb devices d0... and brings each up; withAddr gives each
// a /24 of its own.
func upIfbs(n int, withAddr bool) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "link add d%d type ifb\nlink set d%d up\n", i, i)
		if withAddr {
			fmt.Fprintf(&b, "addr add 10.%d.%d.1/24 dev d%d\n", i>>8&255, i&255, i)
		}
	}
	return b.String()
}

func each(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// route24 is the i-th /24 from 10.0.0.0/24 on (past 10/8 into 11/8).
func route24(i int) netip.Prefix {
	v := uint32(10)<<24 + uint32(i)<<8
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), 0}), 24)
}

// workloads are the seven benchmarks at the given scale.
func workloads(scale float64) []workload {
	a, b := scaled(sizes.flushA, scale), scaled(sizes.flushB, scale)
	c := scaled(sizes.delPrimary, scale)
	d := scaled(sizes.routes, scale)
	e, f, g := scaled(sizes.delAddr, scale), scaled(sizes.group, scale), scaled(sizes.del, scale)
	var routes strings.Builder
	for i := range d {
		fmt.Fprintf(&routes, "route add %s dev i0\n", route24(i))
	}
	routes.WriteString("route flush table main\n")
	return []workload{
		{fmt.Sprintf("a-flush-%d", a), slash8Setup(a), "addr flush dev i0\n", 0},
		{fmt.Sprintf("b-flush-%d", b), slash8Setup(b), "addr flush dev i0\n", 0},
		{fmt.Sprintf("c-del-primary-of-%d", c), slash8Setup(c), "addr del 10.0.0.1/8 dev i0\n", 0},
		{fmt.Sprintf("d-route-add-flush-%d", d), noIPv6 + "link add i0 type ifb\nlink set i0 up\n", routes.String(), 0},
		{fmt.Sprintf("e-del-addr-devs-%d", e), upIfbs(e, true), each(e, "link del d%d\n"), 0},
		{fmt.Sprintf("f-group-move-%d", f), upIfbs(f, false), each(f, "link set d%d group 5\n"), 0},
		{fmt.Sprintf("g-del-devs-%d", g), upIfbs(g, false), each(g, "link del d%d\n"), 0},
	}
}

// fidelitySizes are the extra prediction rows' sizes at scale 1.
var fidelitySizes = struct {
	concurrent, groupDown, flushNoPromote, routeFlush int
}{1000, 2000, 4000, 20000}

// fidelityWorkloads are the prediction set of `make fidelity`: the seven
// workloads, then one-by-one deletion by 2, 4 and 10 concurrent ip
// processes, a group move of DOWN devices, a flush without promotion and a
// route flush alone. None is a calibration scenario (rtnlsim calibrate's
// set has other sizes, one thread, and no group move; the test
// TestFidelityRowsAreNotCalibrated holds the sizes apart).
func fidelityWorkloads(scale float64) []workload {
	ws := workloads(scale)
	n := scaled(fidelitySizes.concurrent, scale)
	for _, th := range []int{2, 4, 10} {
		ws = append(ws, workload{fmt.Sprintf("h-del-devs-%d-by-%d", n, th), upIfbs(n, false), each(n, "link del d%d\n"), th})
	}
	g := scaled(fidelitySizes.groupDown, scale)
	ws = append(ws, workload{fmt.Sprintf("i-group-move-down-%d", g), each(g, "link add d%d type ifb\n"), each(g, "link set d%d group 5\n"), 0})
	f := scaled(fidelitySizes.flushNoPromote, scale)
	ws = append(ws, workload{fmt.Sprintf("j-flush-no-promote-%d", f),
		strings.Replace(slash8Setup(f), "promote_secondaries=1", "promote_secondaries=0", 1), "addr flush dev i0\n", 0})
	r := scaled(fidelitySizes.routeFlush, scale)
	var routes strings.Builder
	routes.WriteString(noIPv6 + "link add i0 type ifb\nlink set i0 up\n")
	for i := range r {
		fmt.Fprintf(&routes, "route add %s dev i0\n", route24(i))
	}
	return append(ws, workload{fmt.Sprintf("k-route-flush-%d", r), routes.String(), "route flush table main\n", 0})
}

// gate is `make fidelity`'s verdict: how many predictions are within
// within (0.25: 25%) of the kernel's median, and whether that is at least
// the fraction need of them.
func gate(reports []ipbatch.Report, within, need float64) (ok int, pass bool) {
	for _, r := range reports {
		if math.Abs(r.ErrorPct) <= within*100 {
			ok++
		}
	}
	return ok, len(reports) > 0 && float64(ok) >= need*float64(len(reports))
}
