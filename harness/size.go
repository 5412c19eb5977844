package harness

import (
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/transport"
)

// The simulator charges each message its exact wire size, as the Real
// runtime's transport would encode it (transport.Message.Size), so bytes
// sent agree between the runtimes.

// releaseSize is the size of a release; points is the number of points
// applied, which an ISP release carries (0 otherwise), and timer its
// semi-centralized local timer (0 for none).
func releaseSize(e consistency.Effect, job uint64, params []float64, points int64, timer time.Duration) int {
	m := transport.Message{Kind: transport.Release, From: transport.Coordinator, To: transport.NodeID(e.Worker), Job: job,
		Version: uint64(e.Version), Clock: e.Clock, Budget: int64(e.Budget), Points: points, Params: params, Timer: timer, Batch: e.Batch}
	return m.Size()
}

func commitSize(w consistency.WorkerID, job, seq, clock uint64, v consistency.Version, batch uint64, d *algorithms.Delta) int {
	m := transport.Message{Kind: transport.Commit, From: transport.NodeID(w), To: transport.Coordinator, Job: job,
		Seq: seq, Version: uint64(v), Clock: clock, Points: int64(d.Count), Delta: d, Batch: batch}
	return m.Size()
}

func interruptSize(w consistency.WorkerID, job, clock uint64) int {
	m := transport.Message{Kind: transport.Interrupt, From: transport.Coordinator, To: transport.NodeID(w), Job: job, Clock: clock}
	return m.Size()
}
