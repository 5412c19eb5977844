package filter

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

func TestSignificanceOneStep(t *testing.T) {
	tests := []struct {
		name  string
		v     float64
		start int
		acc   float64 // the local delta of the first step
		w     float64
		sent  bool
	}{
		{"w=0 acc≠0 is sent", 100, 0, 1e-9, 0, true},
		{"0/0 is not sent", 0, 0, 0, 0, false},
		{"acc=0 is not sent", 0, 0, 0, 5, false},
		{"ratio above v", 0.5, 0, 0.75, 1, true},
		{"ratio exactly v is not sent", 0.5, 0, 0.5, 1, false},
		{"ratio below v", 0.5, 0, 0.25, 1, false},
		{"negative acc", 0.5, 0, -0.75, 1, true},
		{"negative w", 0.5, 0, 0.75, -1, true},
		{"v=0 sends tiny", 0, 0, 1e-300, 1e300, true},
		{"step 3: v_t = v/2", 1, 3, 0.5, 1, false},
		{"step 3: just above v/2", 1, 3, 0.5 + 1.0/1024, 1, true},
		{"step 8: v_t = v/3", 3, 8, 1.0 + 1.0/1024, 1, true},
		{"step 8: below v/3", 3, 8, 1.0 - 1.0/1024, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustSignificance(t, SignificanceConfig{Layout: algorithms.Layout{Params: 1, Delta: 1}, V: tt.v, Start: tt.start})
			send, err := f.Step(dense(1, tt.acc), []float64{tt.w})
			if err != nil {
				t.Fatal(err)
			}
			if got := send.Vec[0] != 0; got != tt.sent {
				t.Errorf("Step(acc %v, w %v) at step %d with v %v sent = %v; want %v", tt.acc, tt.w, tt.start, tt.v, got, tt.sent)
			}
			wantHeld := tt.acc
			if tt.sent {
				wantHeld = 0
				if send.Vec[0] != tt.acc {
					t.Errorf("sent %v; want the whole %v", send.Vec[0], tt.acc)
				}
			}
			if got := heldVec(f)[0]; got != wantHeld {
				t.Errorf("held %v; want %v", got, wantHeld)
			}
		})
	}
}

func TestSignificanceThreshold(t *testing.T) {
	f := mustSignificance(t, SignificanceConfig{Layout: algorithms.Layout{Params: 1, Delta: 1}, V: 0.7})
	for step := range 5 {
		// 0-based step t uses v/√(t+1), the paper's v/√t' with t' = t+1.
		if got, want := f.Threshold(), 0.7/math.Sqrt(float64(step+1)); got != want {
			t.Errorf("Threshold() at step %d = %v; want %v", step, got, want)
		}
		if got := f.Clock(); got != step {
			t.Errorf("Clock() = %d; want %d", got, step)
		}
		if _, err := f.Step(dense(0, 0), []float64{1}); err != nil {
			t.Fatal(err)
		}
	}
}

// An update that stays insignificant is sent whole once the decreasing
// threshold lets it through, and accumulates meanwhile.
func TestSignificanceAccumulatesUntilSignificant(t *testing.T) {
	f := mustSignificance(t, SignificanceConfig{Layout: algorithms.Layout{Params: 2, Delta: 2}, V: 1})
	w := []float64{1, 8}
	steps := []struct {
		local []float64
		send  []float64
		held  []float64
	}{
		{[]float64{0.25, 1}, []float64{0, 0}, []float64{0.25, 1}},         // v_0 = 1
		{[]float64{0.25, 1}, []float64{0, 0}, []float64{0.5, 2}},          // v_1 = 0.707…
		{[]float64{0.125, 1}, []float64{0.625, 0}, []float64{0, 3}},       // v_2 = 0.577…: 0.625 > 0.577
		{[]float64{0, 0}, []float64{0, 0}, []float64{0, 3}},               // v_3 = 0.5: 3/8 below
		{[]float64{0, 1}, []float64{0, 4}, []float64{0, 0}},               // v_4 = 0.447…: 4/8 above
		{[]float64{-0.5, 0}, []float64{-0.5, 0}, []float64{0, 0}},         // v_5 = 0.408…
		{[]float64{0.25, -0.25}, []float64{0, 0}, []float64{0.25, -0.25}}, // v_6 = 0.378…
	}
	for k, s := range steps {
		send, err := f.Step(dense(1, s.local...), w)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(send.Vec, s.send) {
			t.Errorf("step %d: send %v; want %v", k, send.Vec, s.send)
		}
		if got := heldVec(f); !slices.Equal(got, s.held) {
			t.Errorf("step %d: held %v; want %v", k, got, s.held)
		}
	}
}

// Updates received from others move the replica; the filter compares with
// it but never accumulates it, so nothing is re-broadcast.
func TestSignificanceReplicaNeverEntersAcc(t *testing.T) {
	f := mustSignificance(t, SignificanceConfig{Layout: algorithms.Layout{Params: 1, Delta: 1}, V: 0.5})
	if send, _ := f.Step(dense(1, 0.25), []float64{1}); send.Vec[0] != 0 {
		t.Fatalf("0.25/1 sent at v_0 = 0.5")
	}
	// Peers pushed w from 1 to 100: acc is still 0.25, now even less
	// significant; then w collapses to 0.25 and 0.25/0.25 = 1 > v_2.
	if send, _ := f.Step(dense(1, 0), []float64{100}); send.Vec[0] != 0 {
		t.Fatalf("0.25/100 sent")
	}
	if got := heldVec(f)[0]; got != 0.25 {
		t.Fatalf("held %v after a replica change; want 0.25", got)
	}
	send, _ := f.Step(dense(1, 0), []float64{0.25})
	if send.Vec[0] != 0.25 {
		t.Fatalf("send %v; want the held 0.25", send.Vec[0])
	}
}

// PMF-like: only the blocks the step's local delta touched are checked.
func TestSignificanceSparseChecksOnlyLiveBlocks(t *testing.T) {
	l := algorithms.Layout{Params: 6, Delta: 6, Block: 2}
	f := mustSignificance(t, SignificanceConfig{Layout: l, V: 1})
	w := []float64{1, 1, 1, 1, 1, 1}
	local := algorithms.NewDelta(l)
	local.Touch(0)
	local.Vec[0], local.Vec[1] = 0.5, 0.75
	if send, _ := f.Step(local, w); send.Live() != 0 {
		t.Fatalf("step 0 sent %v; want nothing (0.75 ≤ v_0 = 1)", send.Vec)
	}
	// Step 3 (v_3 = 0.5): block 0's 0.75 is significant, but only block 2
	// is touched, so block 0 waits.
	for range 2 {
		if _, err := f.Step(algorithms.NewDelta(l), w); err != nil {
			t.Fatal(err)
		}
	}
	local = algorithms.NewDelta(l)
	local.Touch(2)
	local.Vec[4] = 0.25
	send, err := f.Step(local, w)
	if err != nil {
		t.Fatal(err)
	}
	if got := send.Blocks(); len(got) != 0 {
		t.Errorf("send touched blocks %v; want none (0.25 ≤ v_3 = 0.5, block 0 not live)", got)
	}
	if got, want := heldVec(f), []float64{0.5, 0.75, 0, 0, 0.25, 0}; !slices.Equal(got, want) {
		t.Errorf("held %v; want %v", got, want)
	}
	// Touching block 0 (even with zeros) checks it: 0.75 > v_4 = 0.447.
	local = algorithms.NewDelta(l)
	local.Touch(0)
	local.Count = 1
	send, err = f.Step(local, w)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := send.Vec, []float64{0.5, 0.75, 0, 0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("send %v; want %v", got, want)
	}
	if got, want := send.Blocks(), []int32{0}; !slices.Equal(got, want) {
		t.Errorf("send blocks %v; want %v", got, want)
	}
	if send.Count != 1 {
		t.Errorf("send.Count = %d; want 1", send.Count)
	}
}

// v = 0: ISP reduces to BSP — every step sends exactly the local delta and
// holds nothing (MLLess Appendix A, Corollary 1).
func TestSignificanceZeroThresholdIsBSP(t *testing.T) {
	for _, tl := range testLayouts {
		t.Run(tl.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 3))
			f := mustSignificance(t, SignificanceConfig{Layout: tl.l, V: 0})
			for step := range 200 {
				local := randomLocal(rng, tl.l, 1+rng.IntN(3))
				w := randomReplica(rng, tl.l.Delta)
				send, err := f.Step(local, w)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(send.Vec, local.Vec) || send.Count != local.Count {
					t.Fatalf("step %d: send %v count %d; want local %v count %d", step, send.Vec, send.Count, local.Vec, local.Count)
				}
				if h := f.Held(); h != (Held{}) {
					t.Fatalf("step %d: Held() = %+v; want nothing", step, h)
				}
			}
		})
	}
}

func TestSignificanceStart(t *testing.T) {
	f := mustSignificance(t, SignificanceConfig{Layout: algorithms.Layout{Params: 1, Delta: 1}, V: 1, Start: 99})
	if got, want := f.Threshold(), 0.1; got != want {
		t.Errorf("Threshold() with Start 99 = %v; want %v", got, want)
	}
}

func TestSignificanceConfigErrors(t *testing.T) {
	l := algorithms.Layout{Params: 3, Delta: 3}
	tests := []struct {
		name string
		cfg  SignificanceConfig
		msg  string
	}{
		{"negative v", SignificanceConfig{Layout: l, V: -1}, "threshold V = -1"},
		{"NaN v", SignificanceConfig{Layout: l, V: math.NaN()}, "threshold V = NaN"},
		{"Inf v", SignificanceConfig{Layout: l, V: math.Inf(1)}, "threshold V = +Inf"},
		{"negative start", SignificanceConfig{Layout: l, Start: -1}, "Start = -1"},
		{"negative delta", SignificanceConfig{Layout: algorithms.Layout{Delta: -1}}, "negative length"},
		{"negative block", SignificanceConfig{Layout: algorithms.Layout{Delta: 4, Block: -2}}, "negative length"},
	}
	for _, tt := range tests {
		_, err := NewSignificance(tt.cfg)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: NewSignificance error = %v; want ErrConfig mentioning %q", tt.name, err, tt.msg)
		}
	}
}

// Bad input is refused with an error naming the index, and the filter is
// unchanged: a twin that never saw the bad step behaves identically.
func TestSignificanceBadInputLeavesStateUnchanged(t *testing.T) {
	l := algorithms.Layout{Params: 4, Delta: 4}
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name  string
		local *algorithms.Delta
		w     []float64
		is    error
		msg   string
	}{
		{"NaN local", dense(1, 0, 0, nan, 0), []float64{1, 1, 1, 1}, nil, "delta entry 2 is NaN"},
		{"Inf local", dense(1, 0, -inf, 0, 0), []float64{1, 1, 1, 1}, nil, "delta entry 1 is -Inf"},
		{"acc overflow", dense(1, 0, 0, 0, math.MaxFloat64), []float64{1, 1, 1, 1}, nil, "accumulated delta entry 3 is +Inf"},
		{"NaN replica", dense(1, 1, 1, 1, 1), []float64{1, nan, 1, 1}, nil, "params entry 1 is NaN"},
		{"Inf replica", dense(1, 1, 1, 1, 1), []float64{1, 1, 1, inf}, nil, "params entry 3 is +Inf"},
		{"short replica", dense(1, 1, 1, 1, 1), []float64{1, 1}, algorithms.ErrLayout, "replica len 2, want 4"},
		{"nil replica", dense(1, 1, 1, 1, 1), nil, algorithms.ErrLayout, "replica len 0, want 4"},
		{"long local", dense(1, 1, 1, 1, 1, 1), []float64{1, 1, 1, 1}, algorithms.ErrLayout, "local delta len 5 block 0, want len 4 block 0"},
		{"sparse local", algorithms.NewDelta(algorithms.Layout{Delta: 4, Block: 2}), []float64{1, 1, 1, 1}, algorithms.ErrLayout, "block 2, want len 4 block 0"},
		{"nil local", nil, []float64{1, 1, 1, 1}, algorithms.ErrLayout, "nil local delta"},
		{"negative count", dense(-1, 1, 1, 1, 1), []float64{1, 1, 1, 1}, algorithms.ErrLayout, "count -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := SignificanceConfig{Layout: l, V: 0.5}
			f, twin := mustSignificance(t, cfg), mustSignificance(t, cfg)
			w := []float64{1, 1, 1, math.MaxFloat64}
			// Holds 0.25 and MaxFloat64/2 (ratio exactly v: not sent).
			first := dense(1, 0.25, 0, 0.75, math.MaxFloat64/2)
			for _, g := range []Filter{f, twin} {
				if _, err := g.Step(first.Clone(), w); err != nil {
					t.Fatal(err)
				}
			}
			_, err := f.Step(tt.local, tt.w)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Step error = %v; want one mentioning %q", err, tt.msg)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Step error = %v; want errors.Is %v", err, tt.is)
			}
			var nf *algorithms.NonFiniteError
			if tt.is == nil && !errors.As(err, &nf) {
				t.Errorf("Step error = %v; want an *algorithms.NonFiniteError", err)
			}
			if f.Clock() != twin.Clock() || !slices.Equal(heldVec(f), heldVec(twin)) {
				t.Fatalf("after the refused step: clock %d held %v; want clock %d held %v", f.Clock(), heldVec(f), twin.Clock(), heldVec(twin))
			}
			next := dense(2, 0.125, 0, 0.5, 0)
			a, _ := f.Step(next.Clone(), w)
			b, _ := twin.Step(next.Clone(), w)
			if !slices.Equal(a.Vec, b.Vec) {
				t.Errorf("next step sends %v; twin sends %v", a.Vec, b.Vec)
			}
		})
	}
}

// The sparse layout refuses bad replica entries only where it looks.
func TestSignificanceSparseReplicaCheckedOnlyWhereLive(t *testing.T) {
	l := algorithms.Layout{Params: 4, Delta: 4, Block: 2}
	f := mustSignificance(t, SignificanceConfig{Layout: l, V: 0.5})
	local := algorithms.NewDelta(l)
	local.Touch(1)
	local.Vec[2] = 1
	if _, err := f.Step(local, []float64{math.NaN(), 0, 1, 1}); err != nil {
		t.Errorf("NaN in an untouched block: %v; want no error", err)
	}
	local = algorithms.NewDelta(l)
	local.Touch(0)
	_, err := f.Step(local, []float64{math.NaN(), 0, 1, 1})
	var nf *algorithms.NonFiniteError
	if !errors.As(err, &nf) || nf.Index != 0 || nf.What != "params" {
		t.Errorf("NaN in a touched block: error %v; want params entry 0", err)
	}
}

func TestSignificanceFlush(t *testing.T) {
	l := algorithms.Layout{Params: 6, Delta: 6, Block: 2}
	f := mustSignificance(t, SignificanceConfig{Layout: l, V: 1})
	local := algorithms.NewDelta(l)
	local.Touch(2)
	local.Touch(0)
	local.Vec[0], local.Vec[5], local.Count = 0.5, -0.25, 3
	w := []float64{1, 1, 1, 1, 1, 1}
	if send, _ := f.Step(local, w); send.Live() != 0 {
		t.Fatalf("sent %v; want everything held", send.Vec)
	}
	if got, want := f.Held(), (Held{Entries: 2, L2: math.Sqrt(0.25 + 0.0625), LInf: 0.5}); got != want {
		t.Errorf("Held() = %+v; want %+v", got, want)
	}
	fl := f.Flush()
	if got, want := fl.Vec, []float64{0.5, 0, 0, 0, 0, -0.25}; !slices.Equal(got, want) {
		t.Errorf("Flush().Vec = %v; want %v", got, want)
	}
	if got, want := fl.Blocks(), []int32{0, 2}; !slices.Equal(got, want) {
		t.Errorf("Flush().Blocks() = %v; want %v", got, want)
	}
	if fl.Count != 0 {
		t.Errorf("Flush().Count = %d; want 0 (points were counted when processed)", fl.Count)
	}
	if h := f.Held(); h != (Held{}) {
		t.Errorf("Held() after Flush = %+v; want empty", h)
	}
	if f.Clock() != 1 {
		t.Errorf("Clock() after Flush = %d; want 1 (kept)", f.Clock())
	}
	if fl2 := f.Flush(); fl2.Live() != 0 {
		t.Errorf("second Flush has live entries %v", fl2.Vec)
	}
}

func TestSignificanceFloat32Range(t *testing.T) {
	f := mustSignificance(t, SignificanceConfig{Layout: algorithms.Layout{Params: 2, Delta: 2}, Float32: true})
	_, err := f.Step(dense(1, 1, 1e300), []float64{1, 1})
	if !errors.Is(err, ErrRange) || !strings.Contains(err.Error(), "entry 1") {
		t.Errorf("Step error = %v; want ErrRange naming entry 1", err)
	}
	send, err := f.Step(dense(1, 1+math.Ldexp(1, -40), 0), []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if send.Vec[0] != 1 || heldVec(f)[0] != math.Ldexp(1, -40) {
		t.Errorf("Float32 send %v held %v; want 1 sent and 2^-40 held", send.Vec[0], heldVec(f)[0])
	}
}

// Worst names the checked held entry nearest its bound, over the last
// step's threshold: hand-computed cases, dense and sparse.
func TestSignificanceWorst(t *testing.T) {
	f := mustSignificance(t, SignificanceConfig{Layout: algorithms.Layout{Params: 4, Delta: 4}, V: 0.5})
	if _, _, _, ok := f.Worst(make([]float64, 4)); ok {
		t.Fatal("Worst before any Step: ok")
	}
	// Step 0, v_0 = 0.5: entry 0 (0.1 vs 0.5·1) and entry 2 (−0.4 vs
	// 0.5·1) are held, entry 1 (2 vs 0.5·1) and entry 3 (0/0) are not.
	w := []float64{1, 1, 1, 0}
	if _, err := f.Step(dense(1, 0.1, 2, -0.4, 0), w); err != nil {
		t.Fatal(err)
	}
	i, acc, wi, ok := f.Worst(w)
	if !ok || i != 2 || acc != -0.4 || wi != 1 {
		t.Fatalf("Worst = %d, %g, %g, %v; want entry 2, -0.4, 1", i, acc, wi, ok)
	}
	// Step 1, v_1 = 0.5/√2 ≈ 0.354: entry 2 (−0.4) is sent, entry 0 holds
	// 0.2 ≤ 0.354.
	if _, err := f.Step(dense(1, 0.1, 0, 0, 0), w); err != nil {
		t.Fatal(err)
	}
	if i, acc, _, ok := f.Worst(w); !ok || i != 0 || acc != 0.2 {
		t.Fatalf("Worst = %d, %g, %v; want entry 0, 0.2", i, acc, ok)
	}
	// Sparse: only the blocks of the last step are checked.
	s := mustSignificance(t, SignificanceConfig{Layout: algorithms.Layout{Params: 4, Delta: 4, Block: 2}, V: 1})
	d := algorithms.NewDelta(s.Layout())
	d.Count, d.Vec[3] = 1, 0.5
	d.Touch(1)
	if _, err := s.Step(d, []float64{1, 1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	d.Reset()
	d.Count, d.Vec[0] = 1, 0.25
	d.Touch(0)
	if _, err := s.Step(d, []float64{1, 1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	if i, acc, _, ok := s.Worst([]float64{1, 1, 1, 1}); !ok || i != 0 || acc != 0.25 {
		t.Fatalf("sparse Worst = %d, %g, %v; want entry 0 (block 1 was not checked)", i, acc, ok)
	}
}
