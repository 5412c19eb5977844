package migrate

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Defaults for Config's zero fields. The paper gives no values for ε or d;
// these are this package's choices.
const (
	DefaultEpsilon = 0.5 // passes
	DefaultRounds  = 4
)

// Test selects which passes the Eq. 8 balance test compares.
type Test uint8

const (
	// TestFinal compares the passes predicted at convergence, P* = P +
	// T·V/N with T the remaining time (Eq. 8 is stated for P* "when ML
	// converges"). Imbalance that will build up is caught at once, before
	// it has accumulated. The default.
	TestFinal Test = iota
	// TestSplit compares the passes predicted at the end of the next time
	// split, P̃ = P + (T/d)·V/N, the quantity the pairing sorts.
	TestSplit
	// TestCurrent compares the passes completed so far, P ("we
	// continuously monitor P_i at each barrier"): migration starts only
	// once the imbalance is there and is then compensated.
	TestCurrent
)

func (t Test) String() string {
	switch t {
	case TestFinal:
		return "final"
	case TestSplit:
		return "split"
	case TestCurrent:
		return "current"
	}
	return fmt.Sprintf("Test(%d)", uint8(t))
}

// Config configures a Planner. The zero value is usable.
type Config struct {
	// Epsilon is Eq. 8's threshold ε in passes: balanced while every
	// super-worker's passes are within ε of the super-workers' mean.
	// The paper bounds it to 0 ≤ ε ≤ 1; so does Validate. Zero means
	// DefaultEpsilon (0.5); to ask for exact balance give a tiny positive
	// value.
	Epsilon float64
	// Rounds is d: a balancing cycle splits the predicted remaining time
	// T into d rounds of T/d and pairs super-workers afresh in each.
	// Zero means DefaultRounds (4).
	Rounds int
	// Test selects the passes Eq. 8 compares; the zero value is TestFinal.
	Test Test
	// Tolerance groups workers into super-workers; the zero value groups
	// only exactly equal statistics.
	Tolerance Tolerance
	// MinSplit is the shortest time split a round may have: when T/d is
	// shorter (a small or underestimated T, near the end of training),
	// the split is stretched to MinSplit, so that Eq. 9 does not ask for
	// a pass balance within less time than delivering and compensating
	// the migrated points takes. Zero means no minimum.
	MinSplit time.Duration
	// MinPoints: a pair whose per-source amount rounds below MinPoints
	// points is not migrated. Zero means 1.
	MinPoints int
}

// Validate fills the defaults and checks the fields.
func (c *Config) Validate() error {
	if c.Epsilon == 0 {
		c.Epsilon = DefaultEpsilon
	}
	if math.IsNaN(c.Epsilon) || c.Epsilon < 0 || c.Epsilon > 1 {
		return inputErr(ErrConfig, "Config.Epsilon", c.Epsilon, "must be in [0, 1] (Eq. 8)")
	}
	if c.Rounds == 0 {
		c.Rounds = DefaultRounds
	}
	if c.Rounds < 0 {
		return inputErr(ErrConfig, "Config.Rounds", c.Rounds, "must be ≥ 1")
	}
	if c.Test > TestCurrent {
		return inputErr(ErrConfig, "Config.Test", c.Test, "unknown test")
	}
	if err := c.Tolerance.validate(); err != nil {
		return err
	}
	if c.MinSplit < 0 {
		return inputErr(ErrConfig, "Config.MinSplit", c.MinSplit, "must be ≥ 0")
	}
	if c.MinPoints == 0 {
		c.MinPoints = 1
	}
	if c.MinPoints < 0 {
		return inputErr(ErrConfig, "Config.MinPoints", c.MinPoints, "must be ≥ 1")
	}
	return nil
}

// Barrier is what the runtime knows at a barrier.
type Barrier struct {
	// Now is the barrier's time (virtual or real, any origin), not before
	// the previous barrier's.
	Now time.Duration
	// Workers are the per-worker statistics, indexed by worker
	// (Placement.Stats builds them).
	Workers []Stats
	// Remaining is the predicted remaining training time T (FSP §3.3's
	// linear fit gives it). Zero means: use RemainingPasses.
	Remaining time.Duration
	// RemainingPasses is the alternative prediction: the average passes
	// still to make until convergence. T is then the time in which the
	// super-workers' mean pass rate, mean(V/N), makes them. Used only
	// when Remaining is zero; when both are zero nothing is planned
	// (training is over).
	RemainingPasses float64
}

// Transfer asks worker From to migrate Points of its points to worker To.
type Transfer struct {
	From, To int
	Points   int
	// Pair is the index of the Decision.Pairs entry the transfer belongs
	// to. Placement.SetPlan may re-match sources to targets among the
	// transfers of one Pair (see there).
	Pair int
}

// Pair is one min/max pairing of a round (§4.2).
type Pair struct {
	Source, Target int // indices into Decision.Groups: fewest and most predicted passes
	// SourcePredicted and TargetPredicted are P̃ = P + (T/d)·V/N.
	SourcePredicted, TargetPredicted float64
	Beta                             float64 // |source| / |target|
	Delta                            float64 // Eq. 9's Δ per source worker
	Points                           int     // Δ rounded, capped so every source keeps a point
	Compensation                     bool    // Δ came from the compensation case
}

// Decision is the planner's answer at one barrier.
type Decision struct {
	Groups    []Group
	Imbalance float64 // Eq. 8's left side over Groups under Config.Test
	Balanced  bool    // Imbalance ≤ ε
	Round     int     // k, 1..d while a balancing cycle runs; 0 when idle
	// NewPlan: a round began or a cycle ended at this barrier. The runtime
	// replaces the pending migrations with Transfers (which may be empty:
	// stop migrating), Placement.SetPlan(Transfers). When NewPlan is false
	// the previous plan stands.
	NewPlan   bool
	Split     time.Duration // the cycle's time split T/d
	Pairs     []Pair
	Transfers []Transfer
}

// Planner is FSP's fine-grained workload balance (§4.2) as a deterministic
// state machine: the runtime calls Plan at every barrier with the
// statistics and the predicted remaining time, and carries out the
// transfers of each new plan. It reads no clock and starts no goroutine;
// it is not safe for concurrent use.
//
// While idle, Plan evaluates Eq. 8; when it fails and time remains, a
// balancing cycle starts: T, the remaining time at that barrier, is split
// into d rounds of T/d. Round k begins at the first barrier at least T/d
// after round k−1 began: Eq. 8 is evaluated again and the cycle ends if it
// holds; otherwise the super-workers are sorted by P̃ and paired min with
// max, second with second-to-last and so on, and each pair gets its Eq. 9
// amount. After round d the cycle ends, and the next barrier that fails
// Eq. 8 launches another.
type Planner struct {
	cfg        Config
	round      int
	split      time.Duration
	roundStart time.Duration
	last       time.Duration
	started    bool
}

// NewPlanner validates cfg and returns an idle Planner.
func NewPlanner(cfg Config) (*Planner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Planner{cfg: cfg}, nil
}

// Config is the planner's configuration with the defaults filled in.
func (p *Planner) Config() Config { return p.cfg }

// Round is the current round k of the balancing cycle, 0 when idle.
func (p *Planner) Round() int { return p.round }

// Plan decides at one barrier. Invalid input returns an error naming it
// and leaves the planner unchanged.
func (p *Planner) Plan(b Barrier) (Decision, error) {
	if p.started && b.Now < p.last {
		return Decision{}, inputErr(ErrInput, "Barrier.Now", b.Now, fmt.Sprintf("must not be before the previous barrier (%v)", p.last))
	}
	if b.Remaining < 0 {
		return Decision{}, inputErr(ErrInput, "Barrier.Remaining", b.Remaining, "must be ≥ 0")
	}
	if math.IsNaN(b.RemainingPasses) || math.IsInf(b.RemainingPasses, 0) || b.RemainingPasses < 0 {
		return Decision{}, inputErr(ErrInput, "Barrier.RemainingPasses", b.RemainingPasses, "must be finite and ≥ 0")
	}
	if len(b.Workers) == 0 {
		return Decision{}, inputErr(ErrInput, "Barrier.Workers", "[]", "need at least one worker")
	}
	if err := validateStats(b.Workers, "Barrier.Workers"); err != nil {
		return Decision{}, err
	}
	p.started, p.last = true, b.Now

	gs := groups(b.Workers, p.cfg.Tolerance)
	remaining := remainingTime(b, gs)
	d := time.Duration(p.cfg.Rounds)
	dec := Decision{Groups: gs, Round: p.round}
	if p.round > 0 {
		dec.Split = p.split
	}

	if p.round > 0 && b.Now < p.roundStart+p.split {
		// Mid-round: the round's plan stands.
		p.test(&dec, remaining, p.split)
		return dec, nil
	}
	if p.round > 0 {
		p.round++
		dec.NewPlan = true // the previous round's plan is over either way
		if p.round > p.cfg.Rounds {
			p.round = 0
		}
	}
	split := p.split
	if p.round == 0 {
		split = max(remaining/d, p.cfg.MinSplit)
	}
	p.test(&dec, remaining, split)
	switch {
	case dec.Balanced || remaining <= 0:
		p.round = 0
	case p.round == 0:
		p.round, p.split = 1, split
	}
	dec.Round, dec.Split = p.round, p.split
	if p.round == 0 {
		dec.Split = 0
		return dec, nil
	}
	p.roundStart = b.Now
	dec.NewPlan = true
	p.pair(&dec, b.Workers)
	return dec, nil
}

// test fills Imbalance and Balanced.
func (p *Planner) test(dec *Decision, remaining, split time.Duration) {
	passes := make([]float64, len(dec.Groups))
	for k, g := range dec.Groups {
		switch p.cfg.Test {
		case TestFinal:
			passes[k] = Predict(g, remaining)
		case TestSplit:
			passes[k] = Predict(g, split)
		default:
			passes[k] = g.Passes
		}
	}
	dec.Imbalance = Imbalance(passes)
	dec.Balanced = dec.Imbalance <= p.cfg.Epsilon
}

// remainingTime is T: Barrier.Remaining, or the time in which the
// super-workers' mean pass rate makes RemainingPasses passes.
func remainingTime(b Barrier, gs []Group) time.Duration {
	if b.Remaining > 0 || b.RemainingPasses == 0 || len(gs) == 0 {
		return b.Remaining
	}
	var rate float64
	for _, g := range gs {
		rate += g.Speed / g.Size
	}
	rate /= float64(len(gs))
	if rate <= 0 {
		return 0
	}
	sec := b.RemainingPasses / rate
	if sec >= float64(math.MaxInt64)/float64(time.Second) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(sec * float64(time.Second))
}

// pair sorts the super-workers by P̃, pairs min with max inwards, computes
// each pair's Eq. 9 amount and spreads it over the member workers.
func (p *Planner) pair(dec *Decision, stats []Stats) {
	gs := dec.Groups
	pred := make([]float64, len(gs))
	order := make([]int, len(gs))
	for k, g := range gs {
		pred[k] = Predict(g, p.split)
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case pred[a] < pred[b]:
			return -1
		case pred[a] > pred[b]:
			return 1
		}
		return 0
	})
	for lo, hi := 0, len(order)-1; lo < hi; lo, hi = lo+1, hi-1 {
		s, t := order[lo], order[hi]
		delta, comp := Eq9(gs[s], gs[t], p.split)
		keep := math.MaxInt
		for _, w := range gs[s].Workers {
			keep = min(keep, stats[w].Size-1)
		}
		pts := min(int(math.Round(delta)), keep)
		pr := Pair{
			Source: s, Target: t,
			SourcePredicted: pred[s], TargetPredicted: pred[t],
			Beta:  float64(len(gs[s].Workers)) / float64(len(gs[t].Workers)),
			Delta: delta, Points: max(pts, 0), Compensation: comp,
		}
		dec.Pairs = append(dec.Pairs, pr)
		if pr.Points < p.cfg.MinPoints {
			continue
		}
		dec.Transfers = spread(dec.Transfers, len(dec.Pairs)-1, gs[s].Workers, gs[t].Workers, pr.Points)
	}
}

// spread has every source give per points and every target receive an
// even share of the total (the first targets one more when it does not
// divide), matching sources to targets in index order.
func spread(out []Transfer, pair int, sources, targets []int, per int) []Transfer {
	total := per * len(sources)
	share, extra := total/len(targets), total%len(targets)
	need := func(t int) int {
		if t < extra {
			return share + 1
		}
		return share
	}
	t, want := 0, need(0)
	for _, s := range sources {
		give := per
		for give > 0 {
			n := min(give, want)
			if n > 0 {
				out = append(out, Transfer{From: s, To: targets[t], Points: n, Pair: pair})
			}
			give -= n
			want -= n
			if want == 0 && t+1 < len(targets) {
				t++
				want = need(t)
			}
		}
	}
	return out
}
