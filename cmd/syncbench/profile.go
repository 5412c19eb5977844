package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/syncmodels/syncmodels/harness"
)

// compare's -profile: the virtual cost model measured on a machine by
// `syncbench calibrate` (harness.Profile) instead of the fixed defaults.

// profileFlags are the cost-profile flags of compare (and of the reports
// built on it).
type profileFlags struct {
	profilePath string
	transport   string
	cores       float64
	profile     *harness.Profile
	// The cost model's fields beyond -point-cost, -latency, -bandwidth:
	// the apply's time per entry, the per-message time, the runtime's
	// work per commit and a core's wake-up (0: the harness's defaults),
	// as the profile sets them.
	entryCost, messageCost, commitCPU, wakeup time.Duration
	// stall and stallEvery are the operating system's stalls
	// (harness.CostModel.Stall), which only fidelity sets.
	stall, stallEvery time.Duration
	// applied is the cost model the profile gave for the loaded workload.
	applied *harness.CostModel
}

func (p *profileFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.profilePath, "profile", "", "a cost profile written by syncbench calibrate (JSON, docs/calibrate.md): the virtual compute cost of a point of this workload, the apply's cost, -profile-transport's latency, bandwidth and per-message cost, and the cores the workers share (-cores); -point-cost, -latency and -bandwidth given on the command line win; empty = the fixed defaults")
	fs.StringVar(&p.transport, "profile-transport", "inproc", "with -profile: whose message costs the virtual links take: inproc (the goroutine runtime's), grpc (worker processes, gRPC with TLS) or redis")
	fs.Float64Var(&p.cores, "cores", -1, "cores the workers share in virtual time (CPU contention, harness.CostModel.Cores): 0 = a core each; -1 = the profile's with -profile, else 0")
}

func (p *profileFlags) check() error {
	if p.cores != -1 && !(p.cores >= 0 && p.cores <= 1<<20) {
		return fmt.Errorf("-cores %v: want 0 (a core per worker), a number of cores, or -1 for the profile's", p.cores)
	}
	if p.profilePath == "" {
		return nil
	}
	prof, err := harness.LoadProfile(p.profilePath)
	if err != nil {
		return fmt.Errorf("-profile: %v", err)
	}
	if _, ok := prof.Transport(p.transport); !ok {
		var names []string
		for _, t := range prof.Transports {
			names = append(names, t.Name)
		}
		return fmt.Errorf("-profile-transport %q: the profile %s has no such transport (it has %v); measure it with syncbench calibrate -transports", p.transport, p.profilePath, names)
	}
	p.profile = prof
	return nil
}

// shape is the workload as a profile names it.
func (f *compareFlags) shape(d *data) harness.WorkloadShape {
	s := harness.WorkloadShape{Algo: f.algo, K: f.k, Rank: f.rank, Float32: f.float32 && f.algo == "kmeans"}
	switch {
	case d.sparse != nil:
		s.Sparse = true
		if d.sparse.N > 0 {
			s.Dim = int(d.sparse.NNZ() / d.sparse.N)
		}
	case d.dense != nil:
		s.Dim = d.dense.D
	}
	return s
}

// applyProfile sets the cost model from the profile (if any) for the
// loaded data d: each field unless its flag was given.
func (f *compareFlags) applyProfile(d *data) error {
	if f.profile == nil {
		return nil
	}
	set := setFlags(f.fs)
	// -cores 0: a cluster of machines like the profile's, a core per
	// worker; else the machine itself, its cores shared.
	costModel := f.profile.CostModel
	if f.cores == 0 {
		costModel = f.profile.ClusterCostModel
	}
	c, err := costModel(f.shape(d), f.transport)
	if err != nil {
		return fmt.Errorf("-profile: %v", err)
	}
	if !set["point-cost"] {
		f.pointCost = c.PointCost
	}
	if !set["latency"] {
		f.latency = c.Latency
	}
	if !set["bandwidth"] {
		f.bandwidth = c.Bandwidth
	}
	f.entryCost, f.messageCost, f.commitCPU, f.wakeup = c.EntryCost, c.MessageCost, c.CommitCPU, c.Wakeup
	if f.cores < 0 {
		f.cores = c.Cores
	}
	f.applied = &c
	return nil
}

// costModel is the cost model of the runs.
func (f *compareFlags) costModel() harness.CostModel {
	return harness.CostModel{PointCost: f.pointCost, Latency: f.latency, Bandwidth: f.bandwidth,
		EntryCost: f.entryCost, MessageCost: f.messageCost, Cores: max(f.cores, 0), CommitCPU: f.commitCPU, Wakeup: f.wakeup,
		Stall: f.stall, StallEvery: f.stallEvery}
}

// profileLine describes the profile for the table, "" without one.
func (f *compareFlags) profileLine() string {
	if f.profile == nil {
		if f.cores > 0 {
			return fmt.Sprintf("the workers share %g cores (-cores)\n", f.cores)
		}
		return ""
	}
	m := f.profile.Machine
	share := "a core per worker"
	if f.cores > 0 {
		share = fmt.Sprintf("the workers share %.3g cores, %v of runtime work per commit on them, a core waking in %v", f.cores, f.commitCPU, f.wakeup)
	}
	return fmt.Sprintf("cost profile %s (measured %s on %s, %s/%s): point cost %v, apply %v per entry, %s messages %v latency, %v each and %s/s; %s\n",
		f.profilePath, f.profile.Date, m.CPU, m.GOOS, m.GOARCH, f.pointCost, f.entryCost, f.transport, f.latency, f.messageCost, formatBytes(int64(f.bandwidth)), share)
}

// profileJSON names the profile in compare's JSON.
type profileJSON struct {
	File      string  `json:"file"`
	Date      string  `json:"date"`
	CPU       string  `json:"cpu"`
	Transport string  `json:"transport"`
	EntryS    float64 `json:"entry_cost_s"`
	MessageS  float64 `json:"message_cost_s"`
	CommitS   float64 `json:"commit_cpu_s,omitempty"`
	WakeupS   float64 `json:"wakeup_s,omitempty"`
}

func (f *compareFlags) profileJSON() *profileJSON {
	if f.profile == nil {
		return nil
	}
	return &profileJSON{File: f.profilePath, Date: f.profile.Date, CPU: f.profile.Machine.CPU, Transport: f.transport,
		EntryS: f.entryCost.Seconds(), MessageS: f.messageCost.Seconds(), CommitS: f.commitCPU.Seconds(), WakeupS: f.wakeup.Seconds()}
}
