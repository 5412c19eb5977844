package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// A cost profile is what `syncbench calibrate` measured on one machine:
// the compute time of a data point of each workload as a function of its
// size, the coordinator's apply time per entry, and each transport's
// latency, bandwidth and per-message cost. LoadProfile reads one (a JSON
// file, documented in docs/calibrate.md) and Profile.CostModel turns it
// into the CostModel of a workload, so that virtual time predicts what the
// real runtime does on that machine (docs/fidelity.md measures how
// well).

// ProfileVersion is the version of the profile format this package reads
// and writes.
const ProfileVersion = 1

// ErrProfile reports a cost profile that cannot be used: malformed JSON,
// a missing or invalid field, or no entry for the workload or transport
// asked for. Its messages are one line, naming the file and the field.
var ErrProfile = errors.New("harness: invalid cost profile")

// Profile is a machine's measured costs. Durations are float nanoseconds
// (fields ending in _ns), bandwidths bytes per second.
type Profile struct {
	// Version is ProfileVersion.
	Version int `json:"version"`
	// Date is when the profile was measured, as given to calibrate
	// (free text, typically 2006-01-02).
	Date string `json:"date"`
	// Machine describes where it was measured.
	Machine Machine `json:"machine"`
	// Cores is the compute capacity, in cores, the workers of a run on
	// this machine share (CostModel.Cores): the throughput of GOMAXPROCS
	// goroutines computing at once over one's, as measured (less than
	// GOMAXPROCS on a machine other processes load).
	Cores float64 `json:"cores"`
	// WakeupNS is the mean time a sleeping thread takes to run once a
	// goroutine is readied for it (CostModel.Wakeup): the operating
	// system's delay, long on a loaded machine. 0 if not measured.
	WakeupNS float64 `json:"wakeup_ns,omitempty"`
	// Workloads are the workloads' per-point costs, one entry per Key.
	Workloads []WorkloadCost `json:"workloads"`
	// Transports are the message costs, one entry per Name.
	Transports []TransportCost `json:"transports"`
	// Notes are free text: how the numbers were taken.
	Notes []string `json:"notes,omitempty"`

	// source is the file the profile was read from ("" if none).
	source string
}

// Machine describes the machine a profile was measured on.
type Machine struct {
	GOOS   string `json:"goos"`
	GOARCH string `json:"goarch"`
	// CPU is the processor's model name (/proc/cpuinfo), "" if unknown.
	CPU string `json:"cpu"`
	// NumCPU is runtime.NumCPU(), GOMAXPROCS runtime.GOMAXPROCS(0).
	NumCPU     int `json:"num_cpu"`
	GOMAXPROCS int `json:"gomaxprocs"`
	// Go is runtime.Version().
	Go string `json:"go"`
	// Load is the 1-minute load average when calibration began (Linux;
	// 0 if unknown): a loaded, shared machine measures slower.
	Load float64 `json:"load,omitempty"`
}

// WorkloadCost is the compute cost of one data point of a workload, a
// linear model in the workload's size and, for the workloads that have
// them, its groups (WorkloadShape.Size, WorkloadShape.Groups):
//
//	point cost (ns) = InterceptNS + SlopeNS · size + GroupNS · groups
//
// fitted by least squares to Samples. The group term is the work per
// cluster (or factor) that does not grow with the dimension: GMM's
// log-density per component, K-means' comparison with each center.
type WorkloadCost struct {
	// Key names the workload (WorkloadShape.Key): kmeans, kmeans-float32,
	// gmm, fcm, lr, lr-sparse, nmf or pmf.
	Key string `json:"key"`
	// Size says what the size is, for readers: "k·dim", "dim", … (see
	// WorkloadShape.Size).
	Size string `json:"size"`
	// Groups names the groups ("k", "rank"), "" when the model has no
	// group term.
	Groups      string  `json:"groups,omitempty"`
	InterceptNS float64 `json:"intercept_ns"`
	SlopeNS     float64 `json:"slope_ns"`
	GroupNS     float64 `json:"group_ns,omitempty"`
	// R2 is the fit's coefficient of determination over Samples.
	R2 float64 `json:"r2"`
	// ApplyEntryNS is the coordinator's time per delta entry merged and
	// per parameter recomputed by Server.Apply (CostModel.EntryCost).
	ApplyEntryNS float64 `json:"apply_entry_ns"`
	// CommitNS is the runtime's compute per commit beyond its points
	// (CostModel.CommitCPU) in the time of this profile's points: the
	// median of the samples' CommitNS. 0 if not measured.
	CommitNS float64 `json:"commit_ns,omitempty"`
	// GRPCCommitNS is the same for the gRPC runtime (CostModel.CommitCPU
	// over transport grpc): the coordinator's and a worker's compute per
	// commit over gRPC with TLS on loopback, protobuf coding, encryption
	// and system calls included, in the time of this profile's points;
	// the median of the samples' GRPCCommitNS. 0 if not measured (a
	// profile from before it was, or calibrated without -transports
	// grpc): CostModel then refuses transport grpc.
	GRPCCommitNS float64 `json:"grpc_commit_ns,omitempty"`
	// Samples are the measurements the fit is made from.
	Samples []CostSample `json:"samples"`
}

// CostSample is one measured size of a workload: the median of Repeats
// measurements of the compute time per point in batches of Batch points
// (syncbench calibrate takes a real run's WorkerStats.Busy per point).
type CostSample struct {
	Dim  int `json:"dim"`
	K    int `json:"k,omitempty"`
	Rank int `json:"rank,omitempty"`
	// Size and Groups are the shape's (WorkloadShape.Size, Groups).
	Size   float64 `json:"size"`
	Groups float64 `json:"groups,omitempty"`
	// PointNS is the median time per point; LowNS and HighNS the fastest
	// and slowest measurement.
	PointNS float64 `json:"point_ns"`
	LowNS   float64 `json:"low_ns"`
	HighNS  float64 `json:"high_ns"`
	// ApplyEntryNS is the median Server.Apply time per entry at this size.
	ApplyEntryNS float64 `json:"apply_entry_ns"`
	// CommitNS is the runtime's compute per commit beyond its points,
	// in the time of PointNS: the process's CPU time per commit of real
	// runs committing one point at a time, over its CPU time per point
	// (from runs committing Batch points), times PointNS. 0 if not
	// measured.
	CommitNS float64 `json:"commit_ns,omitempty"`
	// GRPCCommitNS is CommitNS over gRPC: the same runs with the
	// coordinator's server and the workers' client in this process,
	// their streams over loopback TCP with mutual TLS 1.3 (the process's
	// CPU time holds both ends). 0 if not measured.
	GRPCCommitNS float64 `json:"grpc_commit_ns,omitempty"`
	Batch        int     `json:"batch"`
	Repeats      int     `json:"repeats"`
}

// TransportCost is the message cost of one transport.
type TransportCost struct {
	// Name is inproc, grpc (gRPC over loopback TCP with mutual TLS, as the
	// gRPC runtime uses it) or redis.
	Name string `json:"name"`
	// LatencyNS is the one-way latency of a small message: half the median
	// round trip between two goroutines (for redis, half a GET's round
	// trip), wake-ups included.
	LatencyNS float64 `json:"latency_ns"`
	// Bandwidth is bytes per second: the inverse of the slope of the time
	// per message against its size, messages streamed one way.
	Bandwidth float64 `json:"bandwidth"`
	// MessageNS is the time per small message (a heartbeat) streamed
	// one way (for redis, 0).
	MessageNS float64 `json:"message_ns"`
	// Samples are the streamed sizes and their median time per message.
	Samples []MessageSample `json:"samples"`
	// RoundNS and WorkerNS (0 if not measured) are the real runtime's
	// own costs over this transport: a BSP round of workers that compute
	// nothing (one point per commit) takes RoundNS + WorkerNS·N with N
	// workers, the medians of short runs fitted by least squares. They
	// are what a commit, its acknowledgement and a release cost the
	// coordinator and a worker beyond the transport: decoding,
	// validating, the model's step, the trace, wake-ups and garbage
	// collection.
	RoundNS  float64 `json:"round_ns,omitempty"`
	WorkerNS float64 `json:"worker_ns,omitempty"`
	// ProcessCommitNS and NullCommitNS (grpc; 0 if not measured) are
	// what separate worker processes add to the gRPC runtime's work per
	// commit: the CPU time, every process's, per commit of BSP runs of
	// workers committing one point of a tiny workload at a time, with
	// the workers in processes of their own (syncbench worker, on this
	// machine's cores), and with them in the coordinator's process over
	// the same gRPC connection. Their difference is each process's own
	// scheduler, wake-ups, system calls and garbage collection, which
	// WorkloadCost.GRPCCommitNS, measured in one process, lacks;
	// CostModel adds it.
	ProcessCommitNS float64 `json:"process_commit_ns,omitempty"`
	NullCommitNS    float64 `json:"null_commit_ns,omitempty"`
	// ProcessLatencyNS (grpc; 0 if not measured) is the one-way latency
	// of a message between processes: LatencyNS plus half of how much
	// longer a null BSP round of one worker takes with the worker in a
	// process of its own than in the coordinator's (the message reaching
	// the other process and its sleeping thread running). CostModel
	// takes it as the latency of transport grpc (LatencyNS is between
	// goroutines of one process).
	ProcessLatencyNS float64 `json:"process_latency_ns,omitempty"`
	// Rounds are the null rounds measured: workers, median round time.
	Rounds []RoundSample `json:"rounds,omitempty"`
}

// RoundSample is a null BSP round's median time with Workers workers.
type RoundSample struct {
	Workers int     `json:"workers"`
	NS      float64 `json:"ns"`
}

// MessageSample is one streamed message size.
type MessageSample struct {
	Bytes int     `json:"bytes"`
	NS    float64 `json:"ns"`
}

// Source is the file the profile was read from, "" if it was not read
// from a file.
func (p *Profile) Source() string { return p.source }

// WorkloadShape is what a Profile needs to know of a workload: its
// algorithm and the sizes its per-point arithmetic grows with.
type WorkloadShape struct {
	// Algo is kmeans, gmm, fcm, lr, pmf or nmf.
	Algo string
	// Dim is the dimension of the data (columns for nmf; for sparse lr,
	// the mean nonzeros per point).
	Dim int
	// K is the number of clusters (kmeans, gmm, fcm).
	K int
	// Rank is the factor rank (pmf, nmf).
	Rank int
	// Sparse is lr on sparse data, Float32 kmeans on float32 data.
	Sparse, Float32 bool
}

// Key returns the profile entry the shape's cost is in: the algorithm,
// with -sparse (lr) or -float32 (kmeans).
func (s WorkloadShape) Key() string {
	switch {
	case s.Algo == "lr" && s.Sparse:
		return "lr-sparse"
	case s.Algo == "kmeans" && s.Float32:
		return "kmeans-float32"
	}
	return s.Algo
}

// Size returns the work of one point in the units of its profile entry,
// and their name: k·dim for the clustering workloads (a point is compared
// with every center), dim for lr (one dot product; nonzeros when sparse),
// rank·dim for nmf (a row against every factor) and rank for pmf (one
// rating).
func (s WorkloadShape) Size() (float64, string) {
	switch s.Algo {
	case "kmeans", "gmm", "fcm":
		return float64(float64(s.K) * float64(s.Dim)), "k·dim"
	case "nmf":
		return float64(float64(s.Rank) * float64(s.Dim)), "rank·dim"
	case "pmf":
		return float64(s.Rank), "rank"
	}
	if s.Sparse {
		return float64(s.Dim), "nonzeros"
	}
	return float64(s.Dim), "dim"
}

// Groups returns the number of groups whose per-point work does not
// grow with the dimension, and their name: k for the clustering
// workloads, rank for nmf, none (0, "") for the others.
func (s WorkloadShape) Groups() (float64, string) {
	switch s.Algo {
	case "kmeans", "gmm", "fcm":
		return float64(s.K), "k"
	case "nmf":
		return float64(s.Rank), "rank"
	}
	return 0, ""
}

// Workload returns the entry named key.
func (p *Profile) Workload(key string) (WorkloadCost, bool) {
	i := slices.IndexFunc(p.Workloads, func(w WorkloadCost) bool { return w.Key == key })
	if i < 0 {
		return WorkloadCost{}, false
	}
	return p.Workloads[i], true
}

// Transport returns the entry named name.
func (p *Profile) Transport(name string) (TransportCost, bool) {
	i := slices.IndexFunc(p.Transports, func(t TransportCost) bool { return t.Name == name })
	if i < 0 {
		return TransportCost{}, false
	}
	return p.Transports[i], true
}

// PointCost returns the profile's compute time of one point of s.
func (p *Profile) PointCost(s WorkloadShape) (time.Duration, error) {
	w, ok := p.Workload(s.Key())
	if !ok {
		return 0, p.errorf("workloads", "no entry %q (have %s)", s.Key(), p.keys())
	}
	return w.PointCost(s), nil
}

// PointCost is the fitted cost of one point of s, at least 1 ns.
func (w WorkloadCost) PointCost(s WorkloadShape) time.Duration {
	size, _ := s.Size()
	groups, _ := s.Groups()
	return max(time.Duration(math.Round(w.InterceptNS+float64(w.SlopeNS*size)+float64(w.GroupNS*groups))), 1)
}

// CostModel returns the cost model of workload s on this machine, its
// workers sharing its cores as the goroutine runtime's do, with its
// messages on transport (a Transports name): PointCost from the
// workload's fit, EntryCost its apply cost, CommitCPU its CommitNS (the
// runtime's work per commit, computed on the shared cores; for transport
// grpc its GRPCCommitNS, the gRPC runtime's in one process, plus what
// worker processes of their own add, the transport's ProcessCommitNS −
// NullCommitNS; an error naming the file and the field if the profile
// lacks them), Cores and
// Wakeup the profile's, Bandwidth the transport's, MessageCost its
// MessageNS and Latency its one-way latency less that (for grpc, its
// ProcessLatencyNS, between processes; at least 1 ns: CostModel reads 0
// as its 100 µs default). ClusterCostModel models a
// cluster of machines like this one instead.
func (p *Profile) CostModel(s WorkloadShape, transport string) (CostModel, error) {
	w, t, err := p.entries(s, transport)
	if err != nil {
		return CostModel{}, err
	}
	commit := w.CommitNS
	if transport == "grpc" {
		i := slices.IndexFunc(p.Workloads, func(x WorkloadCost) bool { return x.Key == w.Key })
		j := slices.IndexFunc(p.Transports, func(x TransportCost) bool { return x.Name == transport })
		switch {
		case !(w.GRPCCommitNS > 0):
			return CostModel{}, p.errorf(fmt.Sprintf("workloads[%d].grpc_commit_ns", i),
				"missing: the gRPC runtime's work per commit (%s) was not measured (a profile from before it was, or timings too noisy), and predicting the gRPC runtime needs it; run syncbench calibrate again (with grpc in -transports)", w.Key)
		case !(t.ProcessCommitNS > 0 && t.NullCommitNS > 0 && t.ProcessLatencyNS > 0):
			return CostModel{}, p.errorf(fmt.Sprintf("transports[%d].process_commit_ns", j),
				"missing: what worker processes add to the gRPC runtime's work per commit was not measured, and predicting the gRPC runtime needs it; run syncbench calibrate again (with grpc in -transports)")
		}
		commit = max(w.GRPCCommitNS+t.ProcessCommitNS-t.NullCommitNS, 0)
	}
	latency := max(nanos(t.LatencyNS-t.MessageNS), 1)
	if transport == "grpc" {
		latency = max(nanos(t.ProcessLatencyNS), 1)
	}
	return CostModel{
		PointCost:   w.PointCost(s),
		Latency:     latency,
		Bandwidth:   t.Bandwidth,
		EntryCost:   max(nanos(w.ApplyEntryNS), 1),
		MessageCost: nanos(t.MessageNS),
		Cores:       p.Cores,
		CommitCPU:   nanos(commit),
		Wakeup:      nanos(p.WakeupNS),
	}, nil
}

// ClusterCostModel returns the cost model of workload s on a cluster of
// machines like this one, a core per worker (Cores 0): PointCost,
// EntryCost and Bandwidth as CostModel gives them. Where the runtime's
// null rounds were measured (RoundNS, WorkerNS), a round of N workers
// costs what they measured: MessageCost is WorkerNS/2 (the simulator
// charges it on the coordinator's link for each commit and each release)
// and Latency RoundNS/2 (one way); otherwise MessageCost is the
// transport's MessageNS and Latency its one-way latency less that.
func (p *Profile) ClusterCostModel(s WorkloadShape, transport string) (CostModel, error) {
	w, t, err := p.entries(s, transport)
	if err != nil {
		return CostModel{}, err
	}
	c := CostModel{
		PointCost:   w.PointCost(s),
		Latency:     max(nanos(t.LatencyNS-t.MessageNS), 1),
		Bandwidth:   t.Bandwidth,
		EntryCost:   max(nanos(w.ApplyEntryNS), 1),
		MessageCost: nanos(t.MessageNS),
	}
	if t.WorkerNS > 0 {
		c.MessageCost, c.Latency = nanos(float64(t.WorkerNS/2)), max(nanos(float64(t.RoundNS/2)), 1)
	}
	return c, nil
}

// entries are the profile's entries for workload s and transport.
func (p *Profile) entries(s WorkloadShape, transport string) (WorkloadCost, TransportCost, error) {
	w, ok := p.Workload(s.Key())
	if !ok {
		return w, TransportCost{}, p.errorf("workloads", "no entry %q (have %s)", s.Key(), p.keys())
	}
	t, ok := p.Transport(transport)
	if !ok {
		var names []string
		for _, t := range p.Transports {
			names = append(names, t.Name)
		}
		return w, t, p.errorf("transports", "no entry %q (have %s)", transport, strings.Join(names, ", "))
	}
	return w, t, nil
}

// FromProfile returns m with the fields the profile p measured for
// workload s over transport set (see Profile.CostModel); m's other fields
// are kept.
func (m CostModel) FromProfile(p *Profile, s WorkloadShape, transport string) (CostModel, error) {
	c, err := p.CostModel(s, transport)
	if err != nil {
		return m, err
	}
	m.PointCost, m.Latency, m.Bandwidth, m.EntryCost, m.MessageCost = c.PointCost, c.Latency, c.Bandwidth, c.EntryCost, c.MessageCost
	m.Cores, m.CommitCPU, m.Wakeup = c.Cores, c.CommitCPU, c.Wakeup
	return m, nil
}

func nanos(ns float64) time.Duration { return time.Duration(math.Round(ns)) }

func (p *Profile) keys() string {
	var ks []string
	for _, w := range p.Workloads {
		ks = append(ks, w.Key)
	}
	if len(ks) == 0 {
		return "none"
	}
	return strings.Join(ks, ", ")
}

// errorf makes an ErrProfile naming the profile's file and field.
func (p *Profile) errorf(field, format string, args ...any) error {
	return profileError(p.source, field, fmt.Sprintf(format, args...))
}

func profileError(source, field, msg string) error {
	where := "profile"
	if source != "" {
		where += " " + source
	}
	if field != "" {
		where += ": " + field
	}
	return &profileErr{"harness: " + where + ": " + msg}
}

// profileErr is an ErrProfile with its own one-line message.
type profileErr struct{ msg string }

func (e *profileErr) Error() string { return e.msg }
func (e *profileErr) Unwrap() error { return ErrProfile }

// LoadProfile reads and validates the profile in file path.
func LoadProfile(path string) (*Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("harness: profile: %w", err)
	}
	return ParseProfile(path, b)
}

// ParseProfile reads and validates a profile from b; source names it in
// errors (a file name, or "").
func ParseProfile(source string, b []byte) (*Profile, error) {
	p := &Profile{source: source}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, jsonError(source, b, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, profileError(source, "", "more than one JSON value")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// jsonError turns a decoding error into a one-line ErrProfile naming the
// field or the line.
func jsonError(source string, b []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line, col := lineCol(b, se.Offset)
		return profileError(source, fmt.Sprintf("line %d column %d", line, col), "malformed JSON: "+strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te):
		return profileError(source, te.Field, fmt.Sprintf("want a %v, got a JSON %s", te.Type, te.Value))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return profileError(source, "", "truncated or empty JSON")
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
		return profileError(source, strings.Trim(f, `"`), "unknown field (a newer profile version, or a typo?)")
	}
	return profileError(source, "", msg)
}

func lineCol(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	pre := b[:off]
	line = bytes.Count(pre, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(pre, '\n') - 1
	return line, max(col, 1)
}

// Validate checks every field: the version, positive cores, and each
// entry's numbers finite and in range, keys unique.
func (p *Profile) Validate() error {
	if p.Version != ProfileVersion {
		return p.errorf("version", "%d: want %d", p.Version, ProfileVersion)
	}
	if !(p.Cores >= 0.001) || p.Cores > maxCores {
		return p.errorf("cores", "%v: want a number of cores from 0.001 to %d", p.Cores, maxCores)
	}
	if err := p.checkNumber("wakeup_ns", p.WakeupNS, false); err != nil {
		return err
	}
	if len(p.Workloads) == 0 && len(p.Transports) == 0 {
		return p.errorf("workloads", "no workloads and no transports: nothing was measured")
	}
	seen := map[string]bool{}
	for i, w := range p.Workloads {
		at := fmt.Sprintf("workloads[%d]", i)
		switch {
		case w.Key == "":
			return p.errorf(at+".key", "empty")
		case seen[w.Key]:
			return p.errorf(at+".key", "%q is listed twice", w.Key)
		}
		seen[w.Key] = true
		for _, f := range []struct {
			name string
			v    float64
		}{{"intercept_ns", w.InterceptNS}, {"slope_ns", w.SlopeNS}, {"group_ns", w.GroupNS}, {"apply_entry_ns", w.ApplyEntryNS}, {"commit_ns", w.CommitNS}, {"grpc_commit_ns", w.GRPCCommitNS}} {
			if err := p.checkNumber(at+"."+f.name, f.v, f.name == "intercept_ns"); err != nil {
				return err
			}
		}
		if w.SlopeNS < 0 {
			return p.errorf(at+".slope_ns", "%g: want ≥ 0 (a larger point cannot cost less)", w.SlopeNS)
		}
		if w.GroupNS < 0 {
			return p.errorf(at+".group_ns", "%g: want ≥ 0 (more groups cannot cost less)", w.GroupNS)
		}
		if math.IsNaN(w.R2) || w.R2 > 1 {
			return p.errorf(at+".r2", "%g: want at most 1", w.R2)
		}
		for j, s := range w.Samples {
			sat := fmt.Sprintf("%s.samples[%d]", at, j)
			switch {
			case s.Dim < 0 || s.K < 0 || s.Rank < 0 || s.Batch < 0 || s.Repeats < 0:
				return p.errorf(sat, "negative dim, k, rank, batch or repeats")
			case !(s.PointNS > 0) || math.IsInf(s.PointNS, 0):
				return p.errorf(sat+".point_ns", "%g: want a positive finite time", s.PointNS)
			}
		}
	}
	clear(seen)
	for i, t := range p.Transports {
		at := fmt.Sprintf("transports[%d]", i)
		switch {
		case t.Name == "":
			return p.errorf(at+".name", "empty")
		case seen[t.Name]:
			return p.errorf(at+".name", "%q is listed twice", t.Name)
		case !(t.Bandwidth >= 1) || math.IsInf(t.Bandwidth, 0):
			return p.errorf(at+".bandwidth", "%g: want a finite number of bytes per second ≥ 1", t.Bandwidth)
		}
		seen[t.Name] = true
		if err := p.checkNumber(at+".latency_ns", t.LatencyNS, false); err != nil {
			return err
		}
		if err := p.checkNumber(at+".message_ns", t.MessageNS, false); err != nil {
			return err
		}
		if err := p.checkNumber(at+".round_ns", t.RoundNS, true); err != nil {
			return err
		}
		if err := p.checkNumber(at+".worker_ns", t.WorkerNS, false); err != nil {
			return err
		}
		if err := p.checkNumber(at+".process_commit_ns", t.ProcessCommitNS, false); err != nil {
			return err
		}
		if err := p.checkNumber(at+".null_commit_ns", t.NullCommitNS, false); err != nil {
			return err
		}
		if err := p.checkNumber(at+".process_latency_ns", t.ProcessLatencyNS, false); err != nil {
			return err
		}
		for j, s := range t.Samples {
			if s.Bytes < 0 || !(s.NS >= 0) || math.IsInf(s.NS, 0) {
				return p.errorf(fmt.Sprintf("%s.samples[%d]", at, j), "bytes %d, ns %g: want ≥ 0 and finite", s.Bytes, s.NS)
			}
		}
	}
	return nil
}

// maxProfileNS bounds a profile's times (an hour): larger is a unit error.
const maxProfileNS = float64(time.Hour)

func (p *Profile) checkNumber(field string, v float64, signed bool) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return p.errorf(field, "%g: want a finite number", v)
	case !signed && v < 0:
		return p.errorf(field, "%g: want ≥ 0", v)
	case math.Abs(v) > maxProfileNS:
		return p.errorf(field, "%g ns is more than an hour: a unit error?", v)
	}
	return nil
}

// WriteProfile writes p as indented JSON to w.
func WriteProfile(w io.Writer, p *Profile) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
