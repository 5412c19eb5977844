package interval

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestOffsetsArriveTogether: with lags as measured, every commit reaches
// the coordinator at the returned arrival, the mean timer is η when no
// worker needs the floor, and no timer is below the floor.
func TestOffsetsArriveTogether(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ms := time.Millisecond
	for i := range 1000 {
		eta := time.Duration(1 + rng.Int64N(int64(2*time.Second)))
		obs := make([]Observation, 1+rng.IntN(32))
		for j := range obs {
			v := 100 + rng.Float64()*1e5
			obs[j] = Observation{Response: time.Duration(rng.Int64N(int64(100 * ms))), Speed: v, Current: v}
		}
		floor := rng.Float64()
		timers, arrival, err := Offsets{Floor: floor}.Timers(eta, obs)
		if err != nil {
			t.Fatal(err)
		}
		if floor == 0 {
			floor = 0.1
		}
		var sum time.Duration
		floored := false
		for j, tm := range timers {
			if got := tm + obs[j].Response; got < arrival-1 || got > arrival+1 {
				t.Fatalf("#%d worker %d: timer %v + response %v = %v; want the arrival %v", i, j, tm, obs[j].Response, got, arrival)
			}
			if float64(tm) < floor*float64(eta)-1 {
				t.Fatalf("#%d worker %d: timer %v below the floor %.3g·%v", i, j, tm, floor, eta)
			}
			floored = floored || math.Abs(float64(tm)-floor*float64(eta)) <= 1
			sum += tm
		}
		if mean := sum / time.Duration(len(timers)); !floored && (mean < eta-1 || mean > eta+1) {
			t.Fatalf("#%d: mean timer %v; want η = %v", i, mean, eta)
		}
	}
}

func TestOffsets(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name    string
		floor   float64
		eta     time.Duration
		obs     []Observation
		want    []time.Duration
		arrival time.Duration
	}{
		{"equal responses: everyone runs η", 0, 100 * ms,
			[]Observation{{Response: 5 * ms}, {Response: 5 * ms}},
			[]time.Duration{100 * ms, 100 * ms}, 105 * ms},
		{"a slow responder runs shorter, a quick one longer", 0, 100 * ms,
			[]Observation{{Response: 2 * ms}, {Response: 4 * ms}, {Response: 12 * ms}},
			[]time.Duration{104 * ms, 102 * ms, 94 * ms}, 106 * ms},
		{"a response longer than η: the floor, and the others wait by computing", 0.1, 100 * ms,
			[]Observation{{Response: 2 * ms}, {Response: 200 * ms}},
			[]time.Duration{208 * ms, 10 * ms}, 210 * ms},
		{"the speed halved since the response (0.5 → 1 ms a point): the expected rest of a point grows by 0.25 ms", 0, 100 * ms,
			[]Observation{{Response: 10 * ms, Speed: 2000, Current: 1000}, {Response: 10 * ms, Speed: 2000, Current: 2000}},
			[]time.Duration{99875 * time.Microsecond, 100125 * time.Microsecond}, 110125 * time.Microsecond},
		{"speed unknown: no correction", 0, 100 * ms,
			[]Observation{{Response: 10 * ms, Speed: 0, Current: 1}, {Response: 10 * ms, Speed: 1, Current: 0}},
			[]time.Duration{100 * ms, 100 * ms}, 110 * ms},
		{"a faster worker's lag never goes below 0", 0, 100 * ms,
			[]Observation{{Response: 0, Speed: 1, Current: 1000}, {Response: 0}},
			[]time.Duration{100 * ms, 100 * ms}, 100 * ms},
		{"no workers", 0, 100 * ms, nil, []time.Duration{}, 100 * ms},
	} {
		got, arrival, err := Offsets{Floor: c.floor}.Timers(c.eta, c.obs)
		if err != nil || len(got) != len(c.want) || arrival != c.arrival {
			t.Errorf("%s: Timers = %v, %v, %v; want %v, %v", c.name, got, arrival, err, c.want, c.arrival)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: Timers = %v; want %v", c.name, got, c.want)
				break
			}
		}
	}
}

func TestOffsetsBadInput(t *testing.T) {
	ok := Observation{Response: time.Millisecond, Speed: 10, Current: 10}
	with := func(f func(*Observation)) []Observation {
		o := ok
		f(&o)
		return []Observation{ok, ok, o}
	}
	for _, c := range []struct {
		field string
		want  error // ErrConfig or ErrInput
		o     Offsets
		eta   time.Duration
		obs   []Observation
	}{
		{"η", ErrInput, Offsets{}, 0, nil},
		{"η", ErrInput, Offsets{}, -time.Second, nil},
		{"Offsets.Floor", ErrConfig, Offsets{Floor: math.NaN()}, time.Second, nil},
		{"Offsets.Floor", ErrConfig, Offsets{Floor: -0.5}, time.Second, nil},
		{"Offsets.Floor", ErrConfig, Offsets{Floor: 1.5}, time.Second, nil},
		{"Observation[2].Response", ErrInput, Offsets{}, time.Second, with(func(o *Observation) { o.Response = -1 })},
		{"Observation[2].Speed", ErrInput, Offsets{}, time.Second, with(func(o *Observation) { o.Speed = math.NaN() })},
		{"Observation[2].Speed", ErrInput, Offsets{}, time.Second, with(func(o *Observation) { o.Speed = -1 })},
		{"Observation[2].Speed", ErrInput, Offsets{}, time.Second, with(func(o *Observation) { o.Speed = math.Inf(1) })},
		{"Observation[2].Speed", ErrInput, Offsets{}, time.Second, with(func(o *Observation) { o.Speed = 1e-320 })},
		{"Observation[2].Current", ErrInput, Offsets{}, time.Second, with(func(o *Observation) { o.Current = math.Inf(-1) })},
		{"Observation[2].Current", ErrInput, Offsets{}, time.Second, with(func(o *Observation) { o.Current = 5e-324 })},
	} {
		timers, _, err := c.o.Timers(c.eta, c.obs)
		var fe *InputError
		if timers != nil || !errors.Is(err, c.want) || !errors.As(err, &fe) || fe.Input != c.field {
			t.Errorf("Timers(%v, %+v) with %+v = %v, %v; want an *InputError wrapping %v naming %s", c.eta, c.obs, c.o, timers, err, c.want, c.field)
		}
	}
	// Extreme but valid: no overflow, no NaN, timers positive.
	timers, arrival, err := Offsets{}.Timers(time.Duration(math.MaxInt64), []Observation{{Response: math.MaxInt64, Speed: 1e-300, Current: 1e300}, {}})
	if err != nil || arrival <= 0 {
		t.Fatalf("extreme: %v, %v, %v", timers, arrival, err)
	}
	for _, tm := range timers {
		if tm <= 0 {
			t.Errorf("extreme: timers %v", timers)
		}
	}
}
