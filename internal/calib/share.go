package calib

// ShareWindowNs is the rcu_barrier sharing window a calibration sets
// (cost.Params.RCUBarrierShareWindowNs): none. A caller that arrives while
// a barrier runs needs the next one, however soon after the running one
// started it came. Measured on this machine's kernel (6.18, 2 CPUs) the way
// users run it: 1000 UP ifb devices deleted one by one by 1, 2, 4 and 10
// concurrent `ip -b` processes (contiguous slices, fresh namespace per
// run, medians of 3) took 18.9 s, 15.8 s, 9.0 s and 4.1 s. Two processes
// gain only the lock work they overlap with the other's barrier: each
// deletion's barrier runs on its own, as without a window (predicted
// 17.7, 17.1, 8.5 and 3.4 s). A window of one jiffy (4 ms at HZ=250) has
// the second process ride on the first one's barrier and predicts 17.7,
// 8.9, 4.5 and 2.2 s: 44% to 50% short at 2, 4 and 10 processes.
const ShareWindowNs = 0

// ShareWindowWhy is the provenance note of ShareWindowNs.
const ShareWindowWhy = "0: measured with 1, 2, 4 and 10 concurrent ip -b processes deleting devices one by one, each caller arriving while a barrier runs needs the next one"
