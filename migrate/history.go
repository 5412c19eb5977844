package migrate

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// Sample is one point of a worker's curve in a Fig. 12-style plot (§6.3):
// its traversal passes and its accumulated contribution to the objective
// at a time.
type Sample struct {
	At           time.Duration
	Passes       float64
	Contribution float64 // Σ Δf attributed to the worker so far
}

// History is per-worker Samples over time, plain data a runtime fills and
// a plot or a JSON encoder reads. How Δf is attributed to workers is the
// runtime's choice (for example each iteration's objective change split
// by the points each worker processed, or the change its own delta makes).
type History struct {
	Workers [][]Sample // Workers[w] in time order
}

// NewHistory returns an empty History for n workers.
func NewHistory(n int) (*History, error) {
	if n < 0 {
		return nil, inputErr(ErrInput, "n", n, "must be ≥ 0")
	}
	return &History{Workers: make([][]Sample, n)}, nil
}

// Record appends worker w's sample at time at: its passes so far, and
// deltaF, the objective contribution since its previous sample, added to
// the running sum. Bad input (unknown worker, a time before w's previous
// sample, negative or non-finite passes, non-finite deltaF) returns an
// error naming it and records nothing.
func (h *History) Record(w int, at time.Duration, passes, deltaF float64) error {
	if w < 0 || w >= len(h.Workers) {
		return inputErr(ErrUnknownWorker, "w", w, fmt.Sprintf("must be in [0, %d)", len(h.Workers)))
	}
	if math.IsNaN(passes) || math.IsInf(passes, 0) || passes < 0 {
		return inputErr(ErrInput, "passes", passes, "must be finite and ≥ 0")
	}
	if math.IsNaN(deltaF) || math.IsInf(deltaF, 0) {
		return inputErr(ErrInput, "deltaF", deltaF, "must be finite")
	}
	s := h.Workers[w]
	var acc float64
	if n := len(s); n > 0 {
		if at < s[n-1].At {
			return inputErr(ErrInput, "at", at, fmt.Sprintf("must not be before worker %d's previous sample (%v)", w, s[n-1].At))
		}
		acc = s[n-1].Contribution
	}
	h.Workers[w] = append(s, Sample{At: at, Passes: passes, Contribution: acc + deltaF})
	return nil
}

// Final is every worker's last sample (the bars of Fig. 12); a worker with
// no sample gets the zero Sample.
func (h *History) Final() []Sample {
	out := make([]Sample, len(h.Workers))
	for w, s := range h.Workers {
		if len(s) > 0 {
			out[w] = s[len(s)-1]
		}
	}
	return out
}

// WriteCSV writes the samples as CSV with the header
// worker,seconds,passes,contribution, worker by worker in time order.
func (h *History) WriteCSV(out io.Writer) error {
	b := bufio.NewWriter(out)
	b.WriteString("worker,seconds,passes,contribution\n")
	var line []byte
	for w, s := range h.Workers {
		for _, x := range s {
			line = strconv.AppendInt(line[:0], int64(w), 10)
			line = append(line, ',')
			line = strconv.AppendFloat(line, x.At.Seconds(), 'g', -1, 64)
			line = append(line, ',')
			line = strconv.AppendFloat(line, x.Passes, 'g', -1, 64)
			line = append(line, ',')
			line = strconv.AppendFloat(line, x.Contribution, 'g', -1, 64)
			line = append(line, '\n')
			b.Write(line)
		}
	}
	return b.Flush()
}
