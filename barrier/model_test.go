package barrier_test

import (
	"cmp"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/syncmodels/syncmodels/barrier"
)

var (
	seedFlag = flag.Uint64("seed", 0, "run the differential tests for this seed only")
	seeds    = flag.Int("seeds", 150, "seeds per primitive in the differential tests")
)

// The differential tests generate random seeded scripts, run them through
// the interaction driver against the real primitives and through a
// deliberately naive reference model, and compare the traces line by line
// (raft quorum/quick_test.go, x/sync syncmap's map_reference_test.go). The
// models keep sets and recompute everything from them after every event;
// they know nothing of channels, counters or yields.

// model is a reference implementation that speaks the driver's script.
type model interface {
	exec(cmd string) []string
	members() []barrier.WorkerID
}

// pendingWait is a Wait the model has not answered yet.
type pendingWait struct {
	seq   int
	w     barrier.WorkerID
	round uint64 // the round it counts for, or the clock passed to Wait
}

type finished struct {
	seq  int
	w    barrier.WorkerID
	text string
}

func render(out []string, done []finished, waits []pendingWait) []string {
	slices.SortStableFunc(done, func(a, b finished) int { return cmp.Or(cmp.Compare(a.w, b.w), cmp.Compare(a.seq, b.seq)) })
	for _, f := range done {
		out = append(out, wname(f.w)+": "+f.text)
	}
	if len(waits) > 0 {
		ws := make([]barrier.WorkerID, len(waits))
		for i, p := range waits {
			ws[i] = p.w
		}
		slices.Sort(ws)
		out = append(out, "waiting: "+wnames(ws))
	}
	return out
}

// roundsModel is the reference for Cyclic (need = all) and Quorum.
type roundsModel struct {
	count int     // Count(k), or 0
	frac  float64 // Fraction(f), or 0; both 0: all
	round uint64
	join  map[barrier.WorkerID]uint64 // member → first round it takes part in
	waits []pendingWait
	seq   int
}

func newRoundsModel(count int, frac float64, ws []barrier.WorkerID) *roundsModel {
	m := &roundsModel{count: count, frac: frac, join: map[barrier.WorkerID]uint64{}}
	for _, w := range ws {
		m.join[w] = 0
	}
	return m
}

// need counts up to the smallest m with m ≥ f·n rather than calling ceil.
func (m *roundsModel) need(n int) int {
	switch {
	case n == 0:
		return 0
	case m.count > 0:
		return min(m.count, n)
	case m.frac > 0:
		k := 1
		for float64(k) < m.frac*float64(n)-1e-9 {
			k++
		}
		return min(k, n)
	}
	return n
}

func (m *roundsModel) participants(r uint64) []barrier.WorkerID {
	var ps []barrier.WorkerID
	for w, j := range m.join {
		if j <= r {
			ps = append(ps, w)
		}
	}
	slices.Sort(ps)
	return ps
}

func (m *roundsModel) arrivals(r uint64) []barrier.WorkerID {
	var as []barrier.WorkerID
	for _, p := range m.waits {
		if p.round == r {
			as = append(as, p.w)
		}
	}
	return as
}

func (m *roundsModel) pending(w barrier.WorkerID) int {
	return slices.IndexFunc(m.waits, func(p pendingWait) bool { return p.w == w })
}

func (m *roundsModel) members() []barrier.WorkerID { return slices.Sorted(maps.Keys(m.join)) }

func (m *roundsModel) exec(cmd string) []string {
	f := strings.Fields(cmd)
	a, _ := parseArgs(f[1:])
	var out []string
	var done []finished
	switch f[0] {
	case "wait":
		w := a.workers[0]
		m.seq++
		j, member := m.join[w]
		switch {
		case !member:
			done = append(done, finished{m.seq, w, "not a member"})
		case m.pending(w) >= 0:
			done = append(done, finished{m.seq, w, "busy"})
		default:
			m.waits = append(m.waits, pendingWait{m.seq, w, max(m.round, j)})
		}
	case "cancel":
		w := a.workers[0]
		if i := m.pending(w); i >= 0 {
			p := m.waits[i]
			m.waits = slices.Delete(m.waits, i, i+1)
			var missing []barrier.WorkerID
			parts := m.participants(p.round)
			for _, q := range parts {
				if q != w && !slices.Contains(m.arrivals(p.round), q) {
					missing = append(missing, q)
				}
			}
			need := max(m.need(len(parts))-len(m.arrivals(p.round))-1, 0)
			done = append(done, finished{p.seq, w, waitPhrase(errCanceled, false, p.round, missing, need)})
		}
	case "join":
		w := a.workers[0]
		if _, ok := m.join[w]; ok {
			out = append(out, wname(w)+": join already a member")
			break
		}
		j := m.round + 1
		if len(m.participants(m.round)) == 0 {
			j = m.round
		}
		m.join[w] = j
		out = append(out, fmt.Sprintf("%s: joins at round %d", wname(w), j))
	case "leave":
		w := a.workers[0]
		if _, ok := m.join[w]; !ok {
			out = append(out, wname(w)+": leave not a member")
			break
		}
		delete(m.join, w)
		out = append(out, wname(w)+": leave ok")
		if i := m.pending(w); i >= 0 {
			done = append(done, finished{m.waits[i].seq, w, "left"})
			m.waits = slices.Delete(m.waits, i, i+1)
		}
	case "state":
		members := slices.Sorted(maps.Keys(m.join))
		out = append(out, fmt.Sprintf("round %d; members [%s]", m.round, wnames(members)))
	}
	// Release rounds while complete.
	for len(m.join) > 0 {
		parts := m.participants(m.round)
		if len(parts) > 0 && len(m.arrivals(m.round)) < m.need(len(parts)) {
			break
		}
		arrived := m.arrivals(m.round)
		var late []barrier.WorkerID
		for _, q := range parts {
			if !slices.Contains(arrived, q) {
				late = append(late, q)
			}
		}
		slices.Sort(arrived)
		out = append(out, actionLine(m.round, arrived, late))
		keep := m.waits[:0]
		for _, p := range m.waits {
			if p.round == m.round {
				done = append(done, finished{p.seq, p.w, released(false, p.round)})
			} else {
				keep = append(keep, p)
			}
		}
		m.waits = keep
		m.round++
	}
	return render(out, done, m.waits)
}

// clockModel is the reference for ClockTable.
type clockModel struct {
	s      uint64
	clocks map[barrier.WorkerID]uint64
	floor  uint64 // the minimum when the table last had members
	waits  []pendingWait
	seq    int
}

func (m *clockModel) min() uint64 {
	if len(m.clocks) == 0 {
		return m.floor
	}
	return slices.Min(slices.Collect(maps.Values(m.clocks)))
}

func (m *clockModel) need(clock uint64) uint64 {
	if clock < m.s {
		return 0
	}
	return clock - m.s
}

func (m *clockModel) pending(w barrier.WorkerID) int {
	return slices.IndexFunc(m.waits, func(p pendingWait) bool { return p.w == w })
}

func (m *clockModel) members() []barrier.WorkerID { return slices.Sorted(maps.Keys(m.clocks)) }

func (m *clockModel) exec(cmd string) []string {
	f := strings.Fields(cmd)
	a, _ := parseArgs(f[1:])
	var out []string
	var done []finished
	switch f[0] {
	case "wait", "tickwait": // tickwait: tick, then wait for the new clock
		w := a.workers[0]
		clock, _ := a.uint("clock", 0)
		m.seq++
		_, member := m.clocks[w]
		switch {
		case !member:
			done = append(done, finished{m.seq, w, "not a member"})
		case m.pending(w) >= 0:
			done = append(done, finished{m.seq, w, "busy"})
		default:
			if f[0] == "tickwait" {
				if m.clocks[w] < math.MaxUint64 {
					m.clocks[w]++
				}
				clock = m.clocks[w]
			}
			m.waits = append(m.waits, pendingWait{m.seq, w, clock})
		}
	case "cancel":
		w := a.workers[0]
		if i := m.pending(w); i >= 0 {
			p := m.waits[i]
			m.waits = slices.Delete(m.waits, i, i+1)
			var slow []barrier.WorkerID
			for q, c := range m.clocks {
				if c < m.need(p.round) {
					slow = append(slow, q)
				}
			}
			slices.SortFunc(slow, func(x, y barrier.WorkerID) int {
				return cmp.Or(cmp.Compare(m.clocks[x], m.clocks[y]), cmp.Compare(x, y))
			})
			done = append(done, finished{p.seq, w, waitPhrase(errCanceled, true, p.round, slow, len(slow))})
		}
	case "tick":
		w := a.workers[0]
		n, _ := a.uint("n", 1)
		if _, ok := m.clocks[w]; !ok {
			out = append(out, wname(w)+": tick not a member")
			break
		}
		for range n {
			if m.clocks[w] < math.MaxUint64 {
				m.clocks[w]++
			}
		}
		out = append(out, fmt.Sprintf("%s: clock %d", wname(w), m.clocks[w]))
	case "advance":
		w := a.workers[0]
		to, _ := a.uint("to", 0)
		if _, ok := m.clocks[w]; !ok {
			out = append(out, wname(w)+": advance not a member")
			break
		}
		m.clocks[w] = max(m.clocks[w], to)
		out = append(out, fmt.Sprintf("%s: clock %d", wname(w), m.clocks[w]))
	case "join":
		w := a.workers[0]
		if _, ok := m.clocks[w]; ok {
			out = append(out, wname(w)+": join already a member")
			break
		}
		m.clocks[w] = m.min()
		out = append(out, fmt.Sprintf("%s: joins at clock %d", wname(w), m.clocks[w]))
	case "leave":
		w := a.workers[0]
		if _, ok := m.clocks[w]; !ok {
			out = append(out, wname(w)+": leave not a member")
			break
		}
		delete(m.clocks, w)
		out = append(out, wname(w)+": leave ok")
		if i := m.pending(w); i >= 0 {
			done = append(done, finished{m.waits[i].seq, w, "left"})
			m.waits = slices.Delete(m.waits, i, i+1)
		}
	case "state":
		var cs []string
		for _, w := range slices.Sorted(maps.Keys(m.clocks)) {
			cs = append(cs, fmt.Sprintf("%s=%d", wname(w), m.clocks[w]))
		}
		out = append(out, fmt.Sprintf("min %d; clocks [%s]", m.min(), strings.Join(cs, " ")))
	}
	m.floor = m.min()
	keep := m.waits[:0]
	for _, p := range m.waits {
		if m.need(p.round) <= m.floor {
			done = append(done, finished{p.seq, p.w, released(true, p.round)})
		} else {
			keep = append(keep, p)
		}
	}
	m.waits = keep
	return render(out, done, m.waits)
}

// genScript makes a random script of n commands for kind. It consults the
// model it drives so that waits are plausible (mostly members, clocks near
// the worker's own).
func genScript(rng *rand.Rand, kind string, n int) (string, model, []string) {
	const pool = 7 // workers w1..w7, some of them never members
	var initial []barrier.WorkerID
	for w := 1; w <= 1+rng.IntN(5); w++ {
		initial = append(initial, barrier.WorkerID(w))
	}
	var first string
	var m model
	switch kind {
	case "cyclic":
		first = "cyclic " + wnames(initial)
		m = newRoundsModel(0, 0, initial)
	case "quorum":
		if rng.IntN(2) == 0 {
			k := 1 + rng.IntN(4)
			first = fmt.Sprintf("quorum k=%d %s", k, wnames(initial))
			m = newRoundsModel(k, 0, initial)
		} else {
			pct := []int{34, 50, 66, 70, 90, 100}[rng.IntN(6)]
			first = fmt.Sprintf("quorum k=%d%% %s", pct, wnames(initial))
			m = newRoundsModel(0, float64(pct)/100, initial)
		}
	case "clock":
		s := rng.IntN(4)
		first = fmt.Sprintf("clock s=%d %s", s, wnames(initial))
		cm := &clockModel{s: uint64(s), clocks: map[barrier.WorkerID]uint64{}}
		for _, w := range initial {
			cm.clocks[w] = 0
		}
		m = cm
	}
	cmds := []string{first}
	trace := []string{strings.Join(render([]string{"ok"}, nil, nil), "\n")}
	for range n {
		// Mostly members; sometimes anyone, members or not.
		w := barrier.WorkerID(1 + rng.IntN(pool))
		if ms := m.members(); len(ms) > 0 && rng.IntN(4) > 0 {
			w = ms[rng.IntN(len(ms))]
		}
		var cmd string
		switch r := rng.IntN(100); {
		case r < 50:
			cmd = "wait " + wname(w)
			if cm, ok := m.(*clockModel); ok {
				if rng.IntN(3) == 0 {
					cmd = "tickwait " + wname(w)
					break
				}
				c := cm.clocks[w] + uint64(rng.IntN(int(cm.s)+3))
				cmd += fmt.Sprintf(" clock=%d", c)
			}
		case r < 65:
			cmd = "cancel " + wname(w)
			if kind == "clock" && rng.IntN(2) == 0 {
				cmd = "tick " + wname(w)
			}
		case r < 75:
			cmd = "join " + wname(w)
		case r < 85:
			cmd = "leave " + wname(w)
		case r < 90 && kind == "clock":
			cmd = "tick " + wname(w)
		case r < 95 && kind == "clock":
			cm := m.(*clockModel)
			to := max(cm.clocks[w], 1) - 1 + uint64(rng.IntN(5))
			if rng.IntN(50) == 0 {
				to = math.MaxUint64 - uint64(rng.IntN(2)) // saturation
			}
			cmd = fmt.Sprintf("advance %s to=%d", wname(w), to)
		default:
			cmd = "state"
		}
		cmds = append(cmds, cmd)
		trace = append(trace, strings.Join(m.exec(cmd), "\n"))
	}
	return strings.Join(cmds, "\n"), m, trace
}

// runDriver runs a script against the real primitive in a synctest bubble
// and returns the trace, one entry per command.
func runDriver(t *testing.T, script string) []string {
	var trace []string
	synctest.Test(t, func(t *testing.T) {
		d := new(driver)
		defer d.close()
		for _, cmd := range strings.Split(script, "\n") {
			out, err := d.exec(cmd)
			if err != nil {
				t.Fatalf("%s: %v", cmd, err)
			}
			trace = append(trace, strings.Join(out, "\n"))
		}
	})
	return trace
}

func TestDifferential(t *testing.T) {
	for _, kind := range []string{"cyclic", "quorum", "clock"} {
		t.Run(kind, func(t *testing.T) {
			list := make([]uint64, *seeds)
			for i := range list {
				list[i] = uint64(i + 1)
			}
			if *seedFlag != 0 {
				list = []uint64{*seedFlag}
			}
			for _, seed := range list {
				rng := rand.New(rand.NewPCG(seed, 0x5eed))
				script, _, want := genScript(rng, kind, 120)
				got := runDriver(t, script)
				cmds := strings.Split(script, "\n")
				for i := range cmds {
					if got[i] != want[i] {
						t.Fatalf("seed %d (rerun with -seed=%d), command %d %q:\n got:\n%s\nwant (model):\n%s\nscript so far:\n%s",
							seed, seed, i, cmds[i], got[i], want[i], strings.Join(cmds[:i+1], "\n"))
					}
				}
			}
		})
	}
}

// Same seed twice ⇒ byte-identical trace: catches map-order and hidden
// randomness in the primitives and in the driver.
func TestTraceReproducible(t *testing.T) {
	for _, kind := range []string{"cyclic", "quorum", "clock"} {
		rng := rand.New(rand.NewPCG(42, 7))
		script, _, _ := genScript(rng, kind, 200)
		a := strings.Join(runDriver(t, script), "\n")
		b := strings.Join(runDriver(t, script), "\n")
		if a != b {
			t.Errorf("%s: two runs of one script differ:\n%s\n---\n%s", kind, a, b)
		}
	}
}
