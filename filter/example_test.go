package filter_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/filter"
)

// A worker under ISP with v = 1: each entry accumulates until it is
// significant relative to the worker's replica, |acc_i / w_i| > 1/√(t+1),
// and is then sent whole. A worker that leaves flushes what it holds.
func ExampleSignificance() {
	l := algorithms.Layout{Params: 2, Delta: 2}
	f, err := filter.NewSignificance(filter.SignificanceConfig{Layout: l, V: 1})
	if err != nil {
		panic(err)
	}
	w := []float64{1, 4} // the worker's replica
	for range 4 {
		local := algorithms.NewDelta(l)
		local.Vec[0], local.Vec[1], local.Count = 0.25, 0.25, 10
		vt := f.Threshold()
		send, err := f.Step(local, w)
		if err != nil {
			panic(err)
		}
		fmt.Printf("v_t = %.3f  send %v (count %d)  held %+v\n", vt, send.Vec, send.Count, f.Held().Entries)
	}
	fl := f.Flush()
	fmt.Printf("flush %v (count %d)\n", fl.Vec, fl.Count)
	// Output:
	// v_t = 1.000  send [0 0] (count 10)  held 2
	// v_t = 0.707  send [0 0] (count 10)  held 2
	// v_t = 0.577  send [0.75 0] (count 10)  held 1
	// v_t = 0.500  send [0 0] (count 10)  held 2
	// flush [0.25 1] (count 0)
}

// Top-k with error feedback: what is not sent now stays in the
// accumulator and competes again next step.
func ExampleTopK() {
	l := algorithms.Layout{Params: 3, Delta: 3}
	f, err := filter.NewTopK(filter.TopKConfig{Layout: l, K: 1})
	if err != nil {
		panic(err)
	}
	for _, v := range [][]float64{{1, -3, 2}, {0.5, 0, 0}, {0, 0, 0}} {
		local := algorithms.NewDelta(l)
		copy(local.Vec, v)
		send, err := f.Step(local, nil)
		if err != nil {
			panic(err)
		}
		var held []float64
		f.RangeHeld(func(i int, v float64) bool { held = append(held, float64(i), v); return true })
		fmt.Printf("send %v  held (index, value) %v\n", send.Vec, held)
	}
	// Output:
	// send [0 -3 0]  held (index, value) [0 1 2 2]
	// send [0 0 2]  held (index, value) [0 1.5]
	// send [1.5 0 0]  held (index, value) []
}

// QSGD with the P2P defaults (s = 255, L∞ norm): g = [0.5, −1, 0.25] has
// scaled levels [127.5, 255, 63.75]; each is rounded up or down at random
// so that the decoded value is g on average. The packed encoding takes 9
// bits per entry plus a 15-byte header at most.
func ExampleQSGD_Quantize() {
	rng := rand.New(rand.NewPCG(1, 2))
	g := []float64{0.5, -1, 0.25}
	var q filter.Quantized
	if err := (filter.QSGD{}).Quantize(&q, g, rng); err != nil {
		panic(err)
	}
	b, err := q.MarshalBinary()
	if err != nil {
		panic(err)
	}
	fmt.Printf("norm %v, levels %v, %d bits each\n", q.Scale, q.L, q.Bits())
	fmt.Printf("decoded %.4f\n", q.Decode(nil))
	fmt.Printf("%d bytes (float64: %d, float32: %d)\n", len(b), 8*len(g), 4*len(g))

	// The mean of many draws approaches g.
	sum := make([]float64, len(g))
	for range 100000 {
		_ = (filter.QSGD{}).Quantize(&q, g, rng)
		for k := range sum {
			sum[k] += q.Value(k) / 100000
		}
	}
	fmt.Printf("mean of 100000 draws %.4f\n", sum)
	// Output:
	// norm 1, levels [127 -255 64], 9 bits each
	// decoded [0.4980 -1.0000 0.2510]
	// 17 bytes (float64: 24, float32: 12)
	// mean of 100000 draws [0.5000 -1.0000 0.2500]
}

// A sparse PMF-like delta (blocks of rank 4) on the wire: varint-coded
// index gaps and float64 or float32 values.
func ExampleAppendDelta() {
	l := algorithms.Layout{Params: 4000, Delta: 4000, Block: 4}
	d := algorithms.NewDelta(l)
	for _, row := range []int{7, 8, 900} {
		d.Touch(row)
		for k := range 4 {
			d.Vec[row*4+k] = 0.125 * float64(k+1)
		}
	}
	d.Count = 2
	for _, v := range []filter.Values{filter.Float64, filter.Float32} {
		b, err := filter.AppendDelta(nil, d, v)
		if err != nil {
			panic(err)
		}
		got, err := filter.DecodeDelta(b, l)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%v: %d bytes for %d entries (dense float64: %d); decoded blocks %v count %d\n",
			v, len(b), got.Live(), 8*l.Delta, got.Blocks(), got.Count)
	}
	// Output:
	// float64: 116 bytes for 12 entries (dense float64: 32000); decoded blocks [7 8 900] count 2
	// float32: 68 bytes for 12 entries (dense float64: 32000); decoded blocks [7 8 900] count 2
}

// Top-k with error feedback on a plain []float64, no layout or delta: the
// gradient's largest entry is sent each step, the rest is held and
// competes again.
func ExampleTopKVec() {
	f, err := filter.NewTopKVec(filter.TopKVecConfig{Len: 3, K: 1})
	if err != nil {
		panic(err)
	}
	var send []float64 // reused across steps
	for _, g := range [][]float64{{1, -3, 2}, {0.5, 0, 0}, {0, 0, 0}} {
		if send, err = f.Step(send, g); err != nil {
			panic(err)
		}
		var held []float64
		f.RangeHeld(func(i int, v float64) bool { held = append(held, float64(i), v); return true })
		fmt.Printf("send %v  held (index, value) %v\n", send, held)
	}
	// Output:
	// send [0 -3 0]  held (index, value) [0 1 2 2]
	// send [0 0 2]  held (index, value) [0 1.5]
	// send [1.5 0 0]  held (index, value) []
}

// QSGD with error feedback on a plain []float64: each step sends the
// quantised gradient (8-bit levels, L∞ norm) and holds the quantisation
// error, which the next step adds back; the packed levels are what goes on
// the wire.
func ExampleQSGDVec() {
	f, err := filter.NewQSGDVec(filter.QSGDVecConfig{
		Len: 3, QSGD: filter.QSGD{Levels: 3}, ErrorFeedback: true, Rand: rand.New(rand.NewPCG(1, 2)),
	})
	if err != nil {
		panic(err)
	}
	var send []float64
	for range 3 {
		if send, err = f.Step(send, []float64{0.5, -1, 0.25}); err != nil {
			panic(err)
		}
		b, _ := f.Quantized().MarshalBinary()
		fmt.Printf("send %.4f  levels %v  %d bytes  held L∞ %.4f\n", send, f.Quantized().L, len(b), f.Held().LInf)
	}
	// Output:
	// send [0.3333 -1.0000 0.3333]  levels [1 -3 1]  14 bytes  held L∞ 0.1667
	// send [0.6667 -1.0000 0.0000]  levels [2 -3 0]  14 bytes  held L∞ 0.1667
	// send [0.6667 -1.0000 0.3333]  levels [2 -3 1]  14 bytes  held L∞ 0.1667
}
