package transporttest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
)

// Options is what the suite asks of a transport under test.
type Options struct {
	// Layout is the layout the transport validates and decodes messages
	// with.
	Layout algorithms.Layout
	// MaxMessage is the size limit in bytes; 0 means the implementation's
	// default.
	MaxMessage int
}

// Layouts the suite runs on: dense, and block-sparse with a partial last
// block.
var (
	denseLayout  = algorithms.Layout{Params: 24, Delta: 40}
	sparseLayout = algorithms.Layout{Params: 32, Delta: 94, Block: 8}
)

// Timing. Transports under test must deliver within deliverTimeout; quiet
// is how long the suite waits to conclude that nothing more arrives.
const (
	deliverTimeout = 10 * time.Second
	quiet          = 100 * time.Millisecond
)

// Run runs the conformance suite that every transport.Transport passes.
// newTransport returns a new, empty transport configured with o; the suite
// closes it. It must deliver every message exactly once, promptly (within
// tens of milliseconds) and in any order: the suite tests the interface's
// contract, not an unreliable link's behaviour.
//
// The suite checks: a round trip of every kind, on a dense and a sparse
// layout, with deep equality and From stamped by the sender; that the
// receiver gets a deep copy; errors (unknown destination, invalid and
// oversized messages, each sending nothing and leaving the next Send
// working); context cancellation and deadlines of Recv; Close unblocking
// Recv with ErrClosed; Open of an open node failing and a closed node
// reopening empty; Stats bytes equal to the sum of Message.Size; concurrent
// senders (run it under -race); and, after every subtest, that no
// goroutine is left behind. Subtests do not run in parallel, since the leak
// check counts goroutines.
func Run(t *testing.T, newTransport func(t *testing.T, o Options) transport.Transport) {
	s := suite{newTransport: newTransport}
	t.Run("RoundTrip", s.roundTrip)
	t.Run("DeepCopy", s.deepCopy)
	t.Run("UnknownDestination", s.unknownDestination)
	t.Run("Invalid", s.invalid)
	t.Run("Oversized", s.oversized)
	t.Run("RecvContext", s.recvContext)
	t.Run("CloseUnblocksRecv", s.closeUnblocksRecv)
	t.Run("OpenTwice", s.openTwice)
	t.Run("Stats", s.stats)
	t.Run("ConcurrentSenders", s.concurrentSenders)
}

type suite struct {
	newTransport func(t *testing.T, o Options) transport.Transport
}

// transport returns a new transport that is closed, and checked for leaked
// goroutines, when the test ends.
func (s suite) transport(t *testing.T, o Options) transport.Transport {
	t.Helper()
	before := runtime.NumGoroutine()
	tr := s.newTransport(t, o)
	t.Cleanup(func() {
		if err := tr.Close(); err != nil {
			t.Errorf("Close() = %v", err)
		}
		if err := tr.Close(); err != nil {
			t.Errorf("second Close() = %v; want nil", err)
		}
		checkGoroutines(t, before)
	})
	return tr
}

// checkGoroutines waits briefly for the goroutine count to fall back to
// before, and reports the stacks if it does not.
func checkGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("%d goroutines after Close, %d before: leaked\n%s", n, before, buf)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func open(t *testing.T, tr transport.Transport, id transport.NodeID) transport.Endpoint {
	t.Helper()
	ep, err := tr.Open(id)
	if err != nil {
		t.Fatalf("Open(%v) = %v", id, err)
	}
	if got := ep.ID(); got != id {
		t.Fatalf("Open(%v).ID() = %v", id, got)
	}
	return ep
}

func send(t *testing.T, ep transport.Endpoint, m *transport.Message) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), deliverTimeout)
	defer cancel()
	if err := ep.Send(ctx, m); err != nil {
		t.Fatalf("%v: Send(%v) = %v", ep.ID(), m, err)
	}
}

func recv(t *testing.T, ep transport.Endpoint) *transport.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), deliverTimeout)
	defer cancel()
	m, err := ep.Recv(ctx)
	if err != nil {
		t.Fatalf("%v: Recv = %v", ep.ID(), err)
	}
	return m
}

// expectNothing checks that nothing more arrives at ep.
func expectNothing(t *testing.T, ep transport.Endpoint) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), quiet)
	defer cancel()
	if m, err := ep.Recv(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v: Recv = %v, %v; want nothing (context.DeadlineExceeded)", ep.ID(), m, err)
	}
}

// exchange sends every message from ep to its To while the destinations
// receive as many, concurrently (so that a transport may apply
// backpressure), and checks that the messages received equal the ones
// sent, matched by (From, Seq), which must be unique.
func exchange(t *testing.T, eps map[transport.NodeID]transport.Endpoint, from transport.NodeID, msgs []*transport.Message) {
	t.Helper()
	type key struct {
		from, to transport.NodeID
		seq      uint64
	}
	want := make(map[key]*transport.Message)
	counts := make(map[transport.NodeID]int)
	for _, m := range msgs {
		w := *m
		w.From = from
		want[key{from, m.To, m.Seq}] = &w
		counts[m.To]++
	}
	ctx, cancel := context.WithTimeout(t.Context(), deliverTimeout)
	defer cancel()
	got := make(map[transport.NodeID][]*transport.Message)
	errs := make(map[transport.NodeID]error)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for to, n := range counts {
		wg.Go(func() {
			var ms []*transport.Message
			var err error
			for range n {
				var m *transport.Message
				if m, err = eps[to].Recv(ctx); err != nil {
					break
				}
				ms = append(ms, m)
			}
			mu.Lock()
			got[to], errs[to] = ms, err
			mu.Unlock()
		})
	}
	for _, m := range msgs {
		if err := eps[from].Send(ctx, m); err != nil {
			t.Errorf("%v: Send(%v) = %v", from, m, err)
			cancel()
			break
		}
	}
	wg.Wait()
	for to, ms := range got {
		if errs[to] != nil {
			t.Errorf("%v: Recv = %v after %d of %d messages", to, errs[to], len(ms), counts[to])
		}
		for _, g := range ms {
			k := key{g.From, to, g.Seq}
			w, ok := want[k]
			if !ok {
				t.Fatalf("%v received unexpected or repeated %v", to, g)
			}
			delete(want, k)
			if g.To != to {
				t.Errorf("%v received a message with To = %v", to, g.To)
			}
			if d := Diff(w, g); d != "" {
				t.Errorf("%v received %v; diff (-sent +received):\n%s", to, g.Kind, d)
			}
		}
	}
}

func (s suite) roundTrip(t *testing.T) {
	for _, l := range []algorithms.Layout{denseLayout, sparseLayout} {
		t.Run(fmt.Sprintf("%+v", l), func(t *testing.T) {
			tr := s.transport(t, Options{Layout: l})
			eps := map[transport.NodeID]transport.Endpoint{}
			for _, id := range []transport.NodeID{transport.Coordinator, 0, 7} {
				eps[id] = open(t, tr, id)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for _, from := range []transport.NodeID{transport.Coordinator, 7} {
				var msgs []*transport.Message
				for _, k := range transport.Kinds() {
					for i := range 4 {
						m := RandomMessage(rng, l, k)
						m.From = transport.NodeID(rng.IntN(1000)) // ignored by Send
						m.To = []transport.NodeID{transport.Coordinator, 0, 7}[i%3]
						m.Seq = uint64(len(msgs))
						msgs = append(msgs, m)
					}
				}
				exchange(t, eps, from, msgs)
			}
			for _, ep := range eps {
				expectNothing(t, ep)
			}
		})
	}
}

func (s suite) deepCopy(t *testing.T) {
	l := sparseLayout
	tr := s.transport(t, Options{Layout: l})
	c, w := open(t, tr, transport.Coordinator), open(t, tr, 3)
	rng := rand.New(rand.NewPCG(3, 4))

	rel := RandomMessage(rng, l, transport.Release)
	rel.To = 3
	rel.Params = make([]float64, l.Params)
	for i := range rel.Params {
		rel.Params[i] = float64(i) + 0.5
	}
	com := RandomMessage(rng, l, transport.Commit)
	com.To = transport.Coordinator
	com.Delta = algorithms.NewDelta(l)
	com.Delta.Vec[9], com.Delta.Count = 1.5, 10
	com.Delta.Touch(1)

	wantRel, wantCom := *rel, *com
	wantRel.From, wantCom.From = transport.Coordinator, 3
	wantRel.Params = append([]float64(nil), rel.Params...)
	wantCom.Delta = com.Delta.Clone()

	send(t, c, rel)
	send(t, w, com)
	// The caller may reuse the messages as soon as Send returns.
	rel.Params[0], rel.Seq, rel.Reason = -1, 99, "changed"
	com.Delta.Vec[9], com.Delta.Vec[10], com.Delta.Count = 7, 8, 0
	com.Delta.Touch(2)
	com.Delta.Vec[17] = 3

	for _, x := range []struct {
		ep   transport.Endpoint
		want *transport.Message
	}{{w, &wantRel}, {c, &wantCom}} {
		got := recv(t, x.ep)
		if d := Diff(x.want, got); d != "" {
			t.Errorf("%v received a message changed after Send (-sent +received):\n%s", x.ep.ID(), d)
		}
		// And the received message is the receiver's own.
		if got.Params != nil {
			got.Params[1] = 42
		}
	}
	if rel.Params[1] == 42 {
		t.Errorf("the received Params alias the sent ones")
	}
}

func (s suite) unknownDestination(t *testing.T) {
	tr := s.transport(t, Options{Layout: denseLayout})
	c := open(t, tr, transport.Coordinator)
	w := open(t, tr, 0)
	err := c.Send(t.Context(), &transport.Message{Kind: transport.Heartbeat, To: 42})
	if !errors.Is(err, transport.ErrUnknownNode) || !strings.Contains(fmt.Sprint(err), "42") {
		t.Errorf("Send to node 42 = %v; want an error wrapping ErrUnknownNode naming 42", err)
	}
	send(t, c, &transport.Message{Kind: transport.Heartbeat, To: 0, Seq: 1})
	if got := recv(t, w); got.Seq != 1 {
		t.Errorf("received %v; want the heartbeat with seq 1", got)
	}
	expectNothing(t, w)
}

func (s suite) invalid(t *testing.T) {
	l := sparseLayout
	tr := s.transport(t, Options{Layout: l})
	c, w := open(t, tr, transport.Coordinator), open(t, tr, 1)
	good := func() *transport.Message {
		return &transport.Message{Kind: transport.Release, To: 1, Params: make([]float64, l.Params)}
	}
	nan := good()
	nan.Params[5] = math.NaN()
	short := good()
	short.Params = short.Params[1:]
	inf := &transport.Message{Kind: transport.Commit, To: 1, Delta: algorithms.NewDelta(l)}
	inf.Delta.Touch(0)
	inf.Delta.Vec[3] = math.Inf(-1)
	wrongDelta := &transport.Message{Kind: transport.Commit, To: 1, Delta: algorithms.NewDelta(denseLayout)}
	for _, tc := range []struct {
		name string
		m    *transport.Message
		want error
	}{
		{"kind 0", &transport.Message{To: 1}, transport.ErrMalformed},
		{"kind 200", &transport.Message{Kind: 200, To: 1}, transport.ErrMalformed},
		{"NaN param", nan, transport.ErrMalformed},
		{"short params", short, algorithms.ErrLayout},
		{"-Inf delta entry", inf, transport.ErrMalformed},
		{"delta of another layout", wrongDelta, algorithms.ErrLayout},
		{"delta on an ack", &transport.Message{Kind: transport.Ack, To: 1, Delta: algorithms.NewDelta(l)}, transport.ErrMalformed},
		{"params on a commit", &transport.Message{Kind: transport.Commit, To: 1, Params: make([]float64, l.Params)}, transport.ErrMalformed},
		{"negative points", &transport.Message{Kind: transport.Commit, To: 1, Points: -1}, transport.ErrMalformed},
		{"invalid UTF-8 reason", &transport.Message{Kind: transport.Stop, To: 1, Reason: "\xff"}, transport.ErrMalformed},
		{"long reason", &transport.Message{Kind: transport.Stop, To: 1, Reason: strings.Repeat("x", transport.MaxReason+1)}, transport.ErrMalformed},
		{"To -2", &transport.Message{Kind: transport.Ack, To: -2}, transport.ErrMalformed},
	} {
		if err := c.Send(t.Context(), tc.m); !errors.Is(err, tc.want) {
			t.Errorf("Send(%s) = %v; want an error wrapping %v", tc.name, err, tc.want)
		}
	}
	m := good()
	m.Seq = 5
	send(t, c, m)
	if got := recv(t, w); got.Seq != 5 {
		t.Errorf("received %v; want the valid release with seq 5", got)
	}
	expectNothing(t, w)
	if st := tr.Stats().Nodes[transport.Coordinator]; st.Sent.Total().Messages != 1 {
		t.Errorf("coordinator Sent = %+v; want 1 message (invalid ones are not sent)", st.Sent.Total())
	}
}

func (s suite) oversized(t *testing.T) {
	l := sparseLayout
	const limit = 512
	tr := s.transport(t, Options{Layout: l, MaxMessage: limit})
	c, w := open(t, tr, transport.Coordinator), open(t, tr, 2)
	big := &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Delta: algorithms.NewDelta(l)}
	for i := range l.Delta {
		big.Delta.Vec[i] = float64(i + 1)
		big.Delta.Touch(i / l.Block)
	}
	big.From = 2
	size := big.Size()
	if size <= limit {
		t.Fatalf("test message of %d bytes is not oversized", size)
	}
	err := w.Send(t.Context(), big)
	if !errors.Is(err, transport.ErrTooLarge) {
		t.Fatalf("Send of %d bytes with a limit of %d = %v; want an error wrapping ErrTooLarge", size, limit, err)
	}
	small := &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Seq: 1, Delta: algorithms.NewDelta(l)}
	small.Delta.Vec[0] = 1
	small.Delta.Touch(0)
	send(t, w, small)
	if got := recv(t, c); got.Seq != 1 {
		t.Errorf("received %v; want the small commit with seq 1", got)
	}
	expectNothing(t, c)
	if st := tr.Stats().Nodes[2]; st.Sent.Total().Messages != 1 {
		t.Errorf("worker 2 Sent = %+v; want 1 message (the oversized one is not sent)", st.Sent.Total())
	}
}

func (s suite) recvContext(t *testing.T) {
	tr := s.transport(t, Options{Layout: denseLayout})
	c := open(t, tr, transport.Coordinator)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() {
		_, err := c.Recv(ctx)
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Recv after cancel = %v; want context.Canceled", err)
		}
	case <-time.After(deliverTimeout):
		t.Fatal("Recv did not return after its context was cancelled")
	}

	ctx, cancel = context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Recv(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Recv past deadline = %v; want context.DeadlineExceeded", err)
	}
	// A done context receives nothing, even with a message waiting.
	send(t, c, &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Seq: 1})
	time.Sleep(quiet)
	if m, err := c.Recv(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Recv with a done context = %v, %v; want context.DeadlineExceeded", m, err)
	}
	if got := recv(t, c); got.Seq != 1 {
		t.Errorf("received %v; want the heartbeat with seq 1", got)
	}
}

func (s suite) closeUnblocksRecv(t *testing.T) {
	tr := s.transport(t, Options{Layout: denseLayout})
	c, w0, w1 := open(t, tr, transport.Coordinator), open(t, tr, 0), open(t, tr, 1)
	recvAsync := func(ep transport.Endpoint) <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := ep.Recv(t.Context())
			done <- err
		}()
		return done
	}
	wait := func(what string, done <-chan error) {
		t.Helper()
		select {
		case err := <-done:
			if !errors.Is(err, transport.ErrClosed) {
				t.Errorf("%s: Recv = %v; want ErrClosed", what, err)
			}
		case <-time.After(deliverTimeout):
			t.Fatalf("%s: Recv still blocked", what)
		}
	}
	d := recvAsync(w0)
	time.Sleep(10 * time.Millisecond)
	if err := w0.Close(); err != nil {
		t.Fatalf("endpoint Close() = %v", err)
	}
	wait("endpoint closed", d)
	if err := w0.Close(); err != nil {
		t.Errorf("second endpoint Close() = %v; want nil", err)
	}
	if _, err := w0.Recv(t.Context()); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Recv on a closed endpoint = %v; want ErrClosed", err)
	}
	if err := w0.Send(t.Context(), &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator}); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Send on a closed endpoint = %v; want ErrClosed", err)
	}
	// A message to a node that went away is lost, not an error.
	if err := c.Send(t.Context(), &transport.Message{Kind: transport.Heartbeat, To: 0}); err != nil {
		t.Errorf("Send to a closed node = %v; want nil (the message is lost)", err)
	}

	dc, d1 := recvAsync(c), recvAsync(w1)
	time.Sleep(10 * time.Millisecond)
	if err := tr.Close(); err != nil {
		t.Fatalf("transport Close() = %v", err)
	}
	wait("transport closed (coordinator)", dc)
	wait("transport closed (worker 1)", d1)
	if err := c.Send(t.Context(), &transport.Message{Kind: transport.Heartbeat, To: 1}); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Send after transport Close = %v; want ErrClosed", err)
	}
	if _, err := tr.Open(5); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Open after Close = %v; want ErrClosed", err)
	}
}

func (s suite) openTwice(t *testing.T) {
	tr := s.transport(t, Options{Layout: denseLayout})
	c, w := open(t, tr, transport.Coordinator), open(t, tr, 4)
	for _, id := range []transport.NodeID{transport.Coordinator, 4} {
		if _, err := tr.Open(id); !errors.Is(err, transport.ErrAlreadyOpen) {
			t.Errorf("second Open(%v) = %v; want ErrAlreadyOpen", id, err)
		}
	}
	if _, err := tr.Open(-2); !errors.Is(err, transport.ErrUnknownNode) {
		t.Errorf("Open(-2) = %v; want ErrUnknownNode", err)
	}
	// The endpoint still works after the failed Open.
	send(t, c, &transport.Message{Kind: transport.Heartbeat, To: 4, Seq: 1})
	if got := recv(t, w); got.Seq != 1 {
		t.Errorf("received %v; want seq 1", got)
	}
	// A closed node reopens empty: what was queued for it, or sent while
	// it was closed, is gone.
	send(t, c, &transport.Message{Kind: transport.Heartbeat, To: 4, Seq: 2})
	time.Sleep(quiet)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	send(t, c, &transport.Message{Kind: transport.Heartbeat, To: 4, Seq: 3})
	w = open(t, tr, 4)
	send(t, c, &transport.Message{Kind: transport.Heartbeat, To: 4, Seq: 4})
	if got := recv(t, w); got.Seq != 4 {
		t.Errorf("reopened node received %v; want seq 4 only", got)
	}
	expectNothing(t, w)
	send(t, w, &transport.Message{Kind: transport.Join, To: transport.Coordinator, Incarnation: 1})
	if got := recv(t, c); got.Kind != transport.Join || got.From != 4 {
		t.Errorf("coordinator received %v; want the join from worker 4", got)
	}
}

func (s suite) stats(t *testing.T) {
	l := sparseLayout
	tr := s.transport(t, Options{Layout: l})
	ids := []transport.NodeID{transport.Coordinator, 0, 1}
	eps := map[transport.NodeID]transport.Endpoint{}
	for _, id := range ids {
		eps[id] = open(t, tr, id)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var want transport.Stats
	want.Nodes = make(map[transport.NodeID]transport.NodeStats)
	for _, id := range ids {
		want.Nodes[id] = transport.NodeStats{}
	}
	for _, from := range ids {
		var msgs []*transport.Message
		for i := range 30 {
			m := RandomMessage(rng, l, transport.Kinds()[rng.IntN(len(transport.Kinds()))])
			m.To = ids[(int(from)+2+i%2)%3]
			m.Seq = uint64(i)
			msgs = append(msgs, m)

			sized := *m
			sized.From = from
			c := transport.Counter{Messages: 1, Bytes: int64(sized.Size())}
			ns := want.Nodes[from]
			ns.Sent[m.Kind].Add(c)
			want.Nodes[from] = ns
			nr := want.Nodes[m.To]
			nr.Received[m.Kind].Add(c)
			want.Nodes[m.To] = nr
		}
		exchange(t, eps, from, msgs)
	}
	if d := statsDiff(want, tr.Stats()); d != "" {
		t.Errorf("Stats (-want +got):\n%s", d)
	}
}

func statsDiff(want, got transport.Stats) string {
	var b strings.Builder
	for _, id := range want.IDs() {
		w, g := want.Nodes[id], got.Nodes[id]
		for _, c := range []struct {
			name string
			w, g *transport.ByKind
		}{{"Sent", &w.Sent, &g.Sent}, {"Duplicated", &w.Duplicated, &g.Duplicated}, {"Dropped", &w.Dropped, &g.Dropped}, {"Received", &w.Received, &g.Received}} {
			for _, k := range transport.Kinds() {
				if c.w[k] != c.g[k] {
					fmt.Fprintf(&b, "%v %s %v: want %+v, got %+v\n", id, c.name, k, c.w[k], c.g[k])
				}
			}
		}
	}
	for id := range got.Nodes {
		if _, ok := want.Nodes[id]; !ok {
			fmt.Fprintf(&b, "unexpected node %v\n", id)
		}
	}
	return b.String()
}

// concurrentSenders: workers commit concurrently; the coordinator acks each
// commit; every message arrives exactly once.
func (s suite) concurrentSenders(t *testing.T) {
	const workers, commits = 8, 40
	l := sparseLayout
	tr := s.transport(t, Options{Layout: l})
	c := open(t, tr, transport.Coordinator)
	eps := make([]transport.Endpoint, workers)
	for i := range eps {
		eps[i] = open(t, tr, transport.NodeID(i))
	}
	ctx, cancel := context.WithTimeout(t.Context(), deliverTimeout)
	defer cancel()
	errs := make(chan error, 2*workers+1)
	fail := func(err error) {
		errs <- err
		cancel() // unblock the others
	}
	var wg sync.WaitGroup
	wg.Go(func() { // the coordinator
		seen := make(map[[2]uint64]bool)
		for range workers * commits {
			m, err := c.Recv(ctx)
			if err != nil {
				fail(fmt.Errorf("coordinator Recv: %w", err))
				return
			}
			k := [2]uint64{uint64(m.From), m.Seq}
			if m.Kind != transport.Commit || seen[k] || m.Delta == nil || m.Delta.Vec[m.Seq%uint64(l.Delta)] != float64(m.From+1) {
				fail(fmt.Errorf("coordinator received unexpected %v", m))
				return
			}
			seen[k] = true
			if err := c.Send(ctx, &transport.Message{Kind: transport.Ack, To: m.From, Seq: m.Seq}); err != nil {
				fail(fmt.Errorf("coordinator Send: %w", err))
				return
			}
		}
	})
	for i, ep := range eps {
		id := transport.NodeID(i)
		wg.Go(func() { // worker i sends
			for seq := range uint64(commits) {
				m := &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Seq: seq, Points: 1, Delta: algorithms.NewDelta(l)}
				j := int(seq % uint64(l.Delta))
				m.Delta.Vec[j], m.Delta.Count = float64(id+1), 1
				m.Delta.Touch(j / l.Block)
				if err := ep.Send(ctx, m); err != nil {
					fail(fmt.Errorf("%v Send: %w", id, err))
					return
				}
			}
		})
		wg.Go(func() { // worker i receives its acks
			acked := make(map[uint64]bool)
			for range commits {
				m, err := ep.Recv(ctx)
				if err != nil {
					fail(fmt.Errorf("%v Recv: %w", id, err))
					return
				}
				if m.Kind != transport.Ack || m.From != transport.Coordinator || acked[m.Seq] || m.Seq >= commits {
					fail(fmt.Errorf("%v received unexpected %v", id, m))
					return
				}
				acked[m.Seq] = true
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tot := tr.Stats().Total()
	if s, r := tot.Sent.Total().Messages, tot.Received.Total().Messages; s != 2*workers*commits || r != s {
		t.Errorf("Stats: %d sent, %d received; want %d each", s, r, 2*workers*commits)
	}
}
