package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/montanaflynn/stats"
)

// What the operating system did to this process, for calibrate and
// fidelity: its CPU time, and (Linux) how long its threads waited for a
// CPU and how often the scheduler took one away.

// osStats are this process's counters at one moment.
type osStats struct {
	// CPU is the process's user and system time (0 where unknown).
	CPU time.Duration
	// RunQueue is the time its threads spent runnable but waiting for a
	// CPU, Slices the times they were put on one, Voluntary and
	// Involuntary their context switches: sleeps and preemptions
	// (Linux: /proc/self/task/*/schedstat and status; 0 elsewhere).
	// Threads that exited are not counted (Go rarely ends one).
	RunQueue                       time.Duration
	Slices, Voluntary, Involuntary int64
}

// readOSStats reads the counters now.
func readOSStats() osStats {
	s := taskStats("/proc/self/task/*")
	s.CPU = processCPU()
	return s
}

// readProcStats reads process pid's counters now (Linux; zero
// elsewhere, or once it has ended): its CPU time is its threads' time on
// a CPU (schedstat's first field), summed.
func readProcStats(pid int) osStats {
	return taskStats("/proc/" + strconv.Itoa(pid) + "/task/*")
}

// taskStats sums the counters of the threads the glob names; CPU is
// their time on a CPU.
func taskStats(glob string) osStats {
	var s osStats
	tasks, _ := filepath.Glob(glob)
	for _, t := range tasks {
		if b, err := os.ReadFile(filepath.Join(t, "schedstat")); err == nil {
			if f := strings.Fields(string(b)); len(f) >= 3 {
				c, _ := strconv.ParseInt(f[0], 10, 64)
				q, _ := strconv.ParseInt(f[1], 10, 64)
				n, _ := strconv.ParseInt(f[2], 10, 64)
				s.CPU += time.Duration(c)
				s.RunQueue += time.Duration(q)
				s.Slices += n
			}
		}
		if b, err := os.ReadFile(filepath.Join(t, "status")); err == nil {
			for line := range strings.SplitSeq(string(b), "\n") {
				k, v, ok := strings.Cut(line, ":")
				if !ok {
					continue
				}
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				switch k {
				case "voluntary_ctxt_switches":
					s.Voluntary += n
				case "nonvoluntary_ctxt_switches":
					s.Involuntary += n
				}
			}
		}
	}
	return s
}

// add is the counters of s and a together.
func (s osStats) add(a osStats) osStats {
	return osStats{CPU: s.CPU + a.CPU, RunQueue: s.RunQueue + a.RunQueue, Slices: s.Slices + a.Slices,
		Voluntary: s.Voluntary + a.Voluntary, Involuntary: s.Involuntary + a.Involuntary}
}

// sub is the counters' change from a to s.
func (s osStats) sub(a osStats) osStats {
	return osStats{CPU: s.CPU - a.CPU, RunQueue: s.RunQueue - a.RunQueue, Slices: s.Slices - a.Slices,
		Voluntary: s.Voluntary - a.Voluntary, Involuntary: s.Involuntary - a.Involuntary}
}

// fidWarmUp is fidelity's default -warmup. On this project's 2-vCPU
// virtual machine, K-means with 16 workers under BSP ran its first 20
// rounds in 1.41 ms each (the median of 5 runs) right after the wake
// probe's idle spell, and in 0.97 ms after 30 ms of computing on every
// core; in the same length the warmed-up runs did 100 to 124 rounds,
// the others 61 to 102. A 100 ms sleep after the probe did not help.
const fidWarmUp = 30 * time.Millisecond

// warmUp keeps every core (GOMAXPROCS goroutines) computing for d, so
// that a real run starts on cores that have been running, as the rest
// of it runs. After an idle spell a virtual machine's cores came back
// slowly (which of the host's and the guest's schedulers holds them
// back was not pinned down), and a run's first iterations, those before
// the target, ran slower than its later ones.
func warmUp(d time.Duration) {
	if d <= 0 {
		return
	}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			x := uint64(0x9e3779b97f4a7c15)
			for start := time.Now(); time.Since(start) < d; {
				for range 1024 {
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
				}
			}
			warmSink.Add(x)
		})
	}
	wg.Wait()
}

// warmSink keeps warmUp's arithmetic from being optimized away.
var warmSink atomic.Uint64

// wakeProbe measures how long a sleeping thread takes to run Go code
// once a goroutine is readied for it, as an idle P's thread does when
// the coordinator releases a worker: n times, a goroutine locked to its
// thread sleeps 200 µs and sends the time to another locked goroutine
// whose thread sleeps in the receive. It returns the median delay in
// nanoseconds: a sample the system preempted the probe's thread in (a
// millisecond, not a wake-up) would dominate a mean of a hundred.
func wakeProbe(n int) float64 {
	ch := make(chan time.Time)
	done := make(chan []float64)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		lat := make([]float64, 0, n)
		for range n {
			t := <-ch
			lat = append(lat, float64(time.Since(t).Nanoseconds()))
		}
		done <- lat
	}()
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for range n {
			time.Sleep(200 * time.Microsecond)
			ch <- time.Now()
		}
	}()
	m, _ := stats.Median(<-done)
	return m
}
