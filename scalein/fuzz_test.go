package scalein

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/knee"
)

// FuzzObserve feeds arbitrary observation sequences — good and bad times,
// losses, step counts and worker reports — and checks that Observe never
// panics, that a rejected observation is an *InputError that leaves the
// state unchanged, and that the actions keep the contract: an evicted
// worker was in the pool, the pool never goes below MinWorkers, an
// eviction by Eq. 1 has a finite s_Δ < S.
func FuzzObserve(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x10\x00\x00\x01\xff\x00\x00\x00"))
	// A steady decline, then a flat tail: reaches the knee and decides.
	var seed []byte
	for i := range 120 {
		seed = append(seed, 100, byte(max(0, 200-3*i)), 0, 0x0f, byte(i), 0, 0, 0)
	}
	f.Add(seed)
	f.Fuzz(fuzzBody)
}

func fuzzBody(t *testing.T, data []byte) {
	// At most 150 observations: every one is checked against a digest of
	// the whole state, which grows with the run.
	data = data[:min(len(data), 150*8)]
	{
		tu, err := New(Config{
			Workers:    []int{0, 1, 2, 3},
			MinWorkers: 2,
			Delta:      time.Second,
			Interval:   500 * time.Millisecond,
			Knee:       &knee.Threshold{Span: 2, Slope: -1e-3, Stable: 2},
			Settle:     int(len(data) % 3),
			Span:       float64(1 + len(data)%4),
		})
		if err != nil {
			t.Fatal(err)
		}
		var now time.Duration
		loss := 2.0
		for len(data) >= 8 {
			c := data[:8]
			data = data[8:]
			now += time.Duration(int8(c[0])) * 10 * time.Millisecond // may go backwards
			o := Observation{Time: now, Steps: int(int8(c[2])) % 4}
			switch c[1] {
			case 255:
				o.Loss = math.NaN()
			case 254:
				o.Loss = math.Inf(1)
			case 253:
				o.Loss = 0
			case 252:
				o.Loss = -loss
			default:
				loss *= 1 - float64(c[1])/2000 // 0 … 12.6% lower
				o.Loss = loss
			}
			for id := range 5 { // ID 4 is unknown
				if c[3]&(1<<id) != 0 {
					r := Report{ID: id, Quality: float64(c[4]) / 16, Duration: time.Duration(int8(c[5])) * time.Millisecond}
					if c[6] == 255 {
						r.Quality = math.NaN()
					}
					o.Workers = append(o.Workers, r)
				}
			}
			if c[7] == 1 && len(o.Workers) > 1 {
				o.Workers[1].ID = o.Workers[0].ID
			}
			pool := tu.Pool()
			before := digest(tu)
			a, err := tu.Observe(o)
			if err != nil {
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("error %v is not an *InputError", err)
				}
				if digest(tu) != before {
					t.Fatalf("rejected %+v (%v) changed the state", o, err)
				}
				if o.Time < 0 || o.Time < tu.lastTime {
					now = tu.lastTime
				}
				continue
			}
			if a.Op == Evict {
				if !slices.Contains(pool, a.Worker) || slices.Contains(tu.Pool(), a.Worker) {
					t.Fatalf("evicted %d from %v, pool now %v", a.Worker, pool, tu.Pool())
				}
				if d := a.Decision; d == nil || (!d.First && !(d.S < tu.cfg.S)) {
					t.Fatalf("eviction by %v", d)
				}
			}
			if len(tu.Pool()) < tu.cfg.MinWorkers {
				t.Fatalf("pool %v below MinWorkers %d", tu.Pool(), tu.cfg.MinWorkers)
			}
			if d := a.Decision; d != nil && !d.First && d.Outcome != Failed &&
				(math.IsNaN(d.S) || math.IsInf(d.S, 0) || !(d.LRef > 0) || !(d.LCur > 0)) {
				t.Fatalf("decision without finite terms: %v", d)
			}
		}
	}
}
