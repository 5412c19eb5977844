package barrier_test

import (
	"bufio"
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/barrier"
)

var update = flag.Bool("update", false, "rewrite the expected traces in testdata/*.txt")

// The interaction tests run scripts from testdata/*.txt against the real
// primitives (raft interaction_test style). A script is a list of blocks:
//
//	# comment
//	command args...
//	----
//	expected trace lines
//
// separated by blank lines. Commands:
//
//	cyclic w1 w2 ...           new Cyclic with these members
//	quorum k=2|k=90% w1 ...    new Quorum
//	clock s=3 w1 w2 ...        new ClockTable with staleness s
//	wait w1 [clock=N] [timeout=5s]
//	                           start a Wait in its own goroutine (clock= for ClockTable)
//	cancel w1                  cancel w1's pending Waits
//	sleep 5s                   advance the fake clock
//	join w3 | leave w2 | tick w1 [n=3] | advance w1 to=5
//	state                      round (clock table: min) and members
//
// Every Wait runs in a goroutine inside a testing/synctest bubble; after each
// command the driver waits until every goroutine is durably blocked, then
// reports the Waits that returned (by worker, then start order) and lists
// those still waiting. Time is the bubble's fake clock, so timeouts are
// exact and instant. Run `go test -run Interaction -update` to rewrite the
// expected traces after an intended change, and review the diff.
func TestInteraction(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.txt scripts")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			runScript(t, file)
		})
	}
}

type block struct {
	comments []string
	cmd      string
	want     []string
	line     int
}

func parseScript(text string) ([]block, error) {
	var blocks []block
	var b block
	sc := bufio.NewScanner(strings.NewReader(text))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), " \t")
		switch {
		case b.cmd == "" && line == "":
		case b.cmd == "" && strings.HasPrefix(line, "#"):
			b.comments = append(b.comments, line)
		case b.cmd == "":
			b.cmd, b.line = line, n
			if !sc.Scan() || sc.Text() != "----" {
				return nil, fmt.Errorf("line %d: command %q not followed by ----", n, line)
			}
			n++
			for sc.Scan() {
				n++
				if sc.Text() == "" {
					break
				}
				b.want = append(b.want, sc.Text())
			}
			blocks = append(blocks, b)
			b = block{}
		}
	}
	if b.comments != nil {
		return nil, fmt.Errorf("line %d: comment without command", n)
	}
	return blocks, sc.Err()
}

func formatScript(blocks []block) string {
	var sb strings.Builder
	for i, b := range blocks {
		if i > 0 {
			sb.WriteString("\n")
		}
		for _, c := range b.comments {
			sb.WriteString(c + "\n")
		}
		sb.WriteString(b.cmd + "\n----\n")
		for _, l := range b.want {
			sb.WriteString(l + "\n")
		}
	}
	return sb.String()
}

func runScript(t *testing.T, file string) {
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parseScript(string(text))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	synctest.Test(t, func(t *testing.T) {
		d := new(driver)
		defer d.close()
		for i := range blocks {
			b := &blocks[i]
			got, err := d.exec(b.cmd)
			if err != nil {
				t.Fatalf("%s:%d: %s: %v", file, b.line, b.cmd, err)
			}
			if *update {
				b.want = got
				continue
			}
			if !slices.Equal(got, b.want) {
				t.Errorf("%s:%d: %s\n got:\n\t%s\nwant:\n\t%s", file, b.line, b.cmd,
					strings.Join(got, "\n\t"), strings.Join(b.want, "\n\t"))
			}
		}
	})
	if *update {
		if err := os.WriteFile(file, []byte(formatScript(blocks)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// driver runs commands against one primitive inside a synctest bubble.
type driver struct {
	rb    barrier.Barrier
	ct    *barrier.ClockTable
	calls []*call // Waits not yet reported, in start order
	// actions holds the lines the barrier action (OnRelease) wrote since
	// the last settle; guarded by mu.
	mu      sync.Mutex
	actions []string
}

// reset ends the Waits of the primitive in use and drives rb or ct
// instead. A round barrier's action records each release as a trace line.
func (d *driver) reset(rb barrier.Barrier, ct *barrier.ClockTable) {
	d.close()
	d.mu.Lock()
	d.rb, d.ct, d.calls, d.actions = rb, ct, nil, nil
	d.mu.Unlock()
	if rb != nil {
		rb.OnRelease(func(r barrier.Release) {
			d.mu.Lock()
			d.actions = append(d.actions, actionLine(r.Round, r.Arrived, r.Late))
			d.mu.Unlock()
		})
	}
}

// actionLine renders a Release.
func actionLine(round uint64, arrived, late []barrier.WorkerID) string {
	return fmt.Sprintf("action: round %d arrived [%s] late [%s]", round, wnames(arrived), wnames(late))
}

type call struct {
	w      barrier.WorkerID
	clock  bool
	cancel context.CancelFunc
	done   chan struct{}
	round  uint64
	err    error
}

// close cancels every pending Wait and waits for their goroutines.
func (d *driver) close() {
	for _, c := range d.calls {
		c.cancel()
	}
	for _, c := range d.calls {
		<-c.done
	}
}

type args struct {
	workers []barrier.WorkerID
	opts    map[string]string
}

func parseArgs(fields []string) (args, error) {
	a := args{opts: map[string]string{}}
	for _, f := range fields {
		if k, v, ok := strings.Cut(f, "="); ok {
			a.opts[k] = v
			continue
		}
		w, err := parseWorker(f)
		if err != nil {
			return a, err
		}
		a.workers = append(a.workers, w)
	}
	return a, nil
}

func (a args) one() (barrier.WorkerID, error) {
	if len(a.workers) != 1 {
		return 0, fmt.Errorf("want one worker, have %d", len(a.workers))
	}
	return a.workers[0], nil
}

func (a args) uint(key string, def uint64) (uint64, error) {
	v, ok := a.opts[key]
	if !ok {
		return def, nil
	}
	return strconv.ParseUint(v, 10, 64)
}

func parseThreshold(s string) (barrier.Threshold, error) {
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(pct, 64)
		return barrier.Fraction(f / 100), err
	}
	k, err := strconv.Atoi(s)
	return barrier.Count(k), err
}

// exec runs one command and returns its trace lines; the error is for a
// malformed command.
func (d *driver) exec(line string) ([]string, error) {
	fields := strings.Fields(line)
	var a args
	if fields[0] != "sleep" {
		var err error
		if a, err = parseArgs(fields[1:]); err != nil {
			return nil, err
		}
	}
	var out []string
	switch fields[0] {
	case "cyclic":
		d.reset(must(barrier.NewCyclic(a.workers...)), nil)
		out = append(out, "ok")
	case "quorum":
		k, err := parseThreshold(a.opts["k"])
		if err != nil {
			return nil, err
		}
		q, err := barrier.NewQuorum(k, a.workers...)
		if err != nil {
			out = append(out, "error: "+err.Error())
			break
		}
		d.reset(q, nil)
		out = append(out, "ok")
	case "clock":
		s, err := a.uint("s", 0)
		if err != nil {
			return nil, err
		}
		d.reset(nil, must(barrier.NewClockTable(int(s), a.workers...)))
		out = append(out, "ok")
	case "wait":
		w, err := a.one()
		if err != nil {
			return nil, err
		}
		clock, err := a.uint("clock", 0)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		if v, ok := a.opts["timeout"]; ok {
			dur, err := time.ParseDuration(v)
			if err != nil {
				cancel()
				return nil, err
			}
			ctx, cancel = context.WithTimeout(context.Background(), dur)
		}
		c := &call{w: w, clock: d.ct != nil, cancel: cancel, done: make(chan struct{}), round: clock}
		d.calls = append(d.calls, c)
		ct, rb := d.ct, d.rb
		go func() {
			defer close(c.done)
			if c.clock {
				c.err = ct.Wait(ctx, w, clock)
			} else {
				c.round, c.err = rb.Wait(ctx, w)
			}
		}()
	case "tickwait":
		w, err := a.one()
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		c := &call{w: w, clock: true, cancel: cancel, done: make(chan struct{})}
		d.calls = append(d.calls, c)
		ct := d.ct
		go func() {
			defer close(c.done)
			c.round, c.err = ct.TickWait(ctx, w)
		}()
	case "cancel":
		w, err := a.one()
		if err != nil {
			return nil, err
		}
		for _, c := range d.calls {
			if c.w == w {
				c.cancel()
			}
		}
	case "sleep":
		dur, err := time.ParseDuration(fields[1])
		if err != nil {
			return nil, err
		}
		time.Sleep(dur)
		out = append(out, "now +"+dur.String())
	case "join":
		w, err := a.one()
		if err != nil {
			return nil, err
		}
		if d.ct != nil {
			clock, err := d.ct.Join(w)
			out = append(out, joined(w, true, clock, err))
		} else {
			round, err := d.rb.Join(w)
			out = append(out, joined(w, false, round, err))
		}
	case "leave":
		w, err := a.one()
		if err != nil {
			return nil, err
		}
		if d.ct != nil {
			err = d.ct.Leave(w)
		} else {
			err = d.rb.Leave(w)
		}
		out = append(out, wname(w)+": leave "+describe(err))
	case "tick":
		w, err := a.one()
		if err != nil {
			return nil, err
		}
		n, err := a.uint("n", 1)
		if err != nil {
			return nil, err
		}
		var clock uint64
		for range n {
			if clock, err = d.ct.Tick(w); err != nil {
				break
			}
		}
		if err != nil {
			out = append(out, wname(w)+": tick "+describe(err))
		} else {
			out = append(out, fmt.Sprintf("%s: clock %d", wname(w), clock))
		}
	case "advance":
		w, err := a.one()
		if err != nil {
			return nil, err
		}
		to, err := a.uint("to", 0)
		if err != nil {
			return nil, err
		}
		clock, err := d.ct.Advance(w, to)
		if err != nil {
			out = append(out, wname(w)+": advance "+describe(err))
		} else {
			out = append(out, fmt.Sprintf("%s: clock %d", wname(w), clock))
		}
	case "state":
		if d.ct != nil {
			var cs []string
			for _, w := range d.ct.Members() {
				c, _ := d.ct.Clock(w)
				cs = append(cs, fmt.Sprintf("%s=%d", wname(w), c))
			}
			out = append(out, fmt.Sprintf("min %d; clocks [%s]", d.ct.Min(), strings.Join(cs, " ")))
		} else {
			out = append(out, fmt.Sprintf("round %d; members [%s]", d.rb.Round(), wnames(d.rb.Members())))
		}
	default:
		return nil, fmt.Errorf("unknown command %q", fields[0])
	}
	return append(out, d.settle()...), nil
}

func joined(w barrier.WorkerID, clock bool, at uint64, err error) string {
	if err != nil {
		return wname(w) + ": join " + describe(err)
	}
	if clock {
		return fmt.Sprintf("%s: joins at clock %d", wname(w), at)
	}
	return fmt.Sprintf("%s: joins at round %d", wname(w), at)
}

// settle waits until every goroutine of the bubble is durably blocked, then
// reports the Waits that returned and lists those still waiting.
func (d *driver) settle() []string {
	synctest.Wait()
	d.mu.Lock()
	out := d.actions
	d.actions = nil
	d.mu.Unlock()
	var finished, waiting []*call
	pending := d.calls[:0]
	for _, c := range d.calls {
		select {
		case <-c.done:
			finished = append(finished, c)
		default:
			pending = append(pending, c)
			waiting = append(waiting, c)
		}
	}
	d.calls = pending
	byWorker := func(a, b *call) int { return cmp.Compare(a.w, b.w) }
	slices.SortStableFunc(finished, byWorker)
	for _, c := range finished {
		out = append(out, wname(c.w)+": "+result(c.clock, c.round, c.err))
	}
	if len(waiting) > 0 {
		slices.SortStableFunc(waiting, byWorker)
		ws := make([]barrier.WorkerID, len(waiting))
		for i, c := range waiting {
			ws[i] = c.w
		}
		out = append(out, "waiting: "+wnames(ws))
	}
	return out
}

func result(clock bool, round uint64, err error) string {
	if err == nil {
		return released(clock, round)
	}
	return describe(err)
}
