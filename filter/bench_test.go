package filter

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

// Benchmark workloads: a dense delta of 1e5 entries (logistic regression
// on 1e5 features), and a PMF-like sparse delta — 20,000 factor rows
// (users + items) of rank 16, a minibatch of 500 ratings touching one user
// row and one item row each, with power-law popularity.
const (
	benchDense = 100_000
	pmfRows    = 20_000
	pmfRank    = 16
	pmfBatch   = 500
	benchRing  = 8 // distinct local deltas cycled through
)

func denseLayout() algorithms.Layout {
	return algorithms.Layout{Params: benchDense, Delta: benchDense}
}

func pmfLayout() algorithms.Layout {
	n := pmfRows * pmfRank
	return algorithms.Layout{Params: n, Delta: n, Block: pmfRank}
}

// benchLocals returns benchRing seeded local deltas for l and a replica.
func benchLocals(l algorithms.Layout) ([]*algorithms.Delta, []float64) {
	rng := rand.New(rand.NewPCG(40, 40))
	w := make([]float64, l.Delta)
	for i := range w {
		w[i] = rng.NormFloat64() * 0.1
	}
	locals := make([]*algorithms.Delta, benchRing)
	for k := range locals {
		d := algorithms.NewDelta(l)
		if l.Block == 0 {
			for i := range d.Vec {
				d.Vec[i] = rng.NormFloat64() * 1e-3
			}
			d.Count = 256
		} else {
			users := pmfRows / 2
			for range pmfBatch {
				// Zipf-like popularity: square a uniform.
				u := int(float64(users) * rng.Float64() * rng.Float64())
				m := users + int(float64(pmfRows-users)*rng.Float64()*rng.Float64())
				for _, row := range []int{u, m} {
					d.Touch(row)
					for j := range pmfRank {
						d.Vec[row*pmfRank+j] += rng.NormFloat64() * 1e-2
					}
				}
			}
			d.Count = pmfBatch
			d.Blocks() // sort once, as a worker's delta would be
		}
		locals[k] = d
	}
	return locals, w
}

func BenchmarkStep(b *testing.B) {
	type workload struct {
		name string
		l    algorithms.Layout
	}
	for _, wl := range []workload{{"dense=1e5", denseLayout()}, {"pmf=20000x16", pmfLayout()}} {
		locals, w := benchLocals(wl.l)
		filters := []struct {
			name string
			new  func() Filter
		}{
			{"significance/v=0.7", func() Filter { return mustSignificance(b, SignificanceConfig{Layout: wl.l, V: 0.7}) }},
			{"significance/v=0", func() Filter { return mustSignificance(b, SignificanceConfig{Layout: wl.l}) }},
			{"topk/k=1000", func() Filter {
				f, _ := NewTopK(TopKConfig{Layout: wl.l, K: 1000})
				return f
			}},
			{"qsgd/s=255", func() Filter { return newQSGDFilter(b, wl.l, false, 41) }},
		}
		for _, fc := range filters {
			b.Run(fc.name+"/"+wl.name, func(b *testing.B) {
				f := fc.new()
				sent, live := 0, 0
				for i := 0; b.Loop(); i++ {
					local := locals[i%benchRing]
					send, err := f.Step(local, w)
					if err != nil {
						b.Fatal(err)
					}
					if i < 64 {
						send.Range(func(_ int, v float64) bool {
							if v != 0 {
								sent++
							}
							return true
						})
						live += local.Live()
					}
				}
				b.ReportMetric(float64(sent)/float64(live), "sent/live")
			})
		}
		b.Run("naive-significance/v=0.7/"+wl.name, func(b *testing.B) {
			ref := &refISP{v: 0.7, acc: make([]float64, wl.l.Delta)}
			lives := make([][]bool, benchRing)
			for k, d := range locals {
				lives[k] = liveSet(d)
			}
			for i := 0; b.Loop(); i++ {
				ref.Step(locals[i%benchRing].Vec, lives[i%benchRing], w)
			}
		})
	}
}

// BenchmarkQSGD measures quantise+pack and unpack+decode of a dense 1e5
// vector. MB/s counts the float64 input (8 bytes per entry); the metrics
// give the packed size per entry and the saving against sending float64
// or float32 values.
func BenchmarkQSGD(b *testing.B) {
	rng := rand.New(rand.NewPCG(42, 42))
	x := make([]float64, benchDense)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for _, c := range []QSGD{{}, {Levels: 15}, {Levels: 1}, {Norm: L2}} {
		c, _ := c.withDefaults()
		name := fmt.Sprintf("s=%d/%v/n=1e5", c.Levels, c.Norm)
		var q Quantized
		if err := c.Quantize(&q, x, rng); err != nil {
			b.Fatal(err)
		}
		enc, _ := q.MarshalBinary()
		report := func(b *testing.B) {
			n := float64(len(x))
			b.ReportMetric(float64(len(enc))/n, "bytes/entry")
			b.ReportMetric(100*(1-float64(len(enc))/(8*n)), "%saved-vs-f64")
			b.ReportMetric(100*(1-float64(len(enc))/(4*n)), "%saved-vs-f32")
		}
		b.Run("encode/"+name, func(b *testing.B) {
			b.SetBytes(int64(8 * len(x)))
			buf := make([]byte, 0, len(enc))
			for b.Loop() {
				if err := c.Quantize(&q, x, rng); err != nil {
					b.Fatal(err)
				}
				buf, _ = q.AppendBinary(buf[:0])
			}
			report(b)
		})
		b.Run("decode/"+name, func(b *testing.B) {
			b.SetBytes(int64(8 * len(x)))
			var back Quantized
			var out []float64
			for b.Loop() {
				if err := back.UnmarshalBinary(enc); err != nil {
					b.Fatal(err)
				}
				out = back.Decode(out)
			}
			report(b)
		})
	}
}

// BenchmarkDeltaWire measures the sparse wire encoding of a PMF-like
// minibatch delta and of a dense 1e5 delta. MB/s counts 8 bytes per live
// entry.
func BenchmarkDeltaWire(b *testing.B) {
	for _, l := range []algorithms.Layout{pmfLayout(), denseLayout()} {
		locals, _ := benchLocals(l)
		d := locals[0]
		for _, v := range []Values{Float64, Float32} {
			name := fmt.Sprintf("%v/live=%d", v, d.Live())
			enc, err := AppendDelta(nil, d, v)
			if err != nil {
				b.Fatal(err)
			}
			report := func(b *testing.B) {
				b.ReportMetric(float64(len(enc))/float64(d.Live()), "bytes/entry")
			}
			b.Run("encode/"+name, func(b *testing.B) {
				b.SetBytes(int64(8 * d.Live()))
				buf := make([]byte, 0, len(enc))
				for b.Loop() {
					buf, _ = AppendDelta(buf[:0], d, v)
				}
				report(b)
			})
			b.Run("decode/"+name, func(b *testing.B) {
				b.SetBytes(int64(8 * d.Live()))
				for b.Loop() {
					if _, err := DecodeDelta(enc, l); err != nil {
						b.Fatal(err)
					}
				}
				report(b)
			})
			b.Run("decode-into/"+name, func(b *testing.B) {
				b.SetBytes(int64(8 * d.Live()))
				dst := algorithms.NewDelta(l)
				for b.Loop() {
					if err := DecodeDeltaInto(dst, enc); err != nil {
						b.Fatal(err)
					}
				}
				report(b)
			})
		}
	}
}
