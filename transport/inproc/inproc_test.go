package inproc_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
	"github.com/syncmodels/syncmodels/transport/transporttest"
)

func newNetwork(t *testing.T, cfg inproc.Config) *inproc.Network {
	t.Helper()
	n, err := inproc.New(cfg)
	if err != nil {
		t.Fatalf("New(%+v) = %v", cfg, err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func TestConformance(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  inproc.Config
	}{
		{"instant", inproc.Config{}},
		// Delays and jitter reorder messages; the suite allows it.
		{"jitter", inproc.Config{Delay: 200 * time.Microsecond, Jitter: 2 * time.Millisecond, Seed: 1}},
		// A small queue makes senders block.
		{"inbox=3", inproc.Config{Inbox: 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			transporttest.Run(t, func(t *testing.T, o transporttest.Options) transport.Transport {
				cfg := c.cfg
				cfg.Layout, cfg.MaxMessage = o.Layout, o.MaxMessage
				n, err := inproc.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				return n
			})
		})
	}
}

func TestConfig(t *testing.T) {
	l := algorithms.Layout{Params: 2, Delta: 2}
	for _, c := range []struct {
		name string
		cfg  inproc.Config
	}{
		{"negative params", inproc.Config{Layout: algorithms.Layout{Params: -1}}},
		{"negative block", inproc.Config{Layout: algorithms.Layout{Delta: 4, Block: -1}}},
		{"negative delay", inproc.Config{Layout: l, Delay: -1}},
		{"negative jitter", inproc.Config{Layout: l, Jitter: -time.Second}},
		{"delay overflows", inproc.Config{Layout: l, Delay: 1 << 62, Jitter: 1}},
		{"drop 1.5", inproc.Config{Layout: l, Drop: 1.5}},
		{"drop NaN", inproc.Config{Layout: l, Drop: nan()}},
		{"duplicate -0.1", inproc.Config{Layout: l, Duplicate: -0.1}},
		{"negative max message", inproc.Config{Layout: l, MaxMessage: -1}},
		{"negative inbox", inproc.Config{Layout: l, Inbox: -5}},
	} {
		if _, err := inproc.New(c.cfg); !errors.Is(err, inproc.ErrConfig) {
			t.Errorf("New(%s) = %v; want an error wrapping ErrConfig", c.name, err)
		}
	}
	if _, err := inproc.New(inproc.Config{Layout: l, Drop: 1, Duplicate: 1}); err != nil {
		t.Errorf("New with probabilities 1 = %v", err)
	}
}

func nan() float64 { z := 0.0; return z / z }

// pattern sends n heartbeats from worker 0 to the coordinator and returns
// the sequence numbers received, in order of arrival, and the stats.
func pattern(t *testing.T, cfg inproc.Config, n int) ([]uint64, transport.Stats) {
	t.Helper()
	var got []uint64
	var st transport.Stats
	cfg.Inbox = 2 * n // room for every message and its duplicate
	synctest.Test(t, func(t *testing.T) {
		nw := newNetwork(t, cfg)
		c, _ := nw.Open(transport.Coordinator)
		w, _ := nw.Open(0)
		for i := range n {
			if err := w.Send(t.Context(), &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Seq: uint64(i)}); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		for {
			m, err := c.Recv(ctx)
			if errors.Is(err, context.DeadlineExceeded) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, m.Seq)
		}
		st = nw.Stats()
	})
	return got, st
}

func TestDropPattern(t *testing.T) {
	const n = 2000
	cfg := inproc.Config{Drop: 0.3, Seed: 7}
	a, st := pattern(t, cfg, n)
	b, _ := pattern(t, cfg, n)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different drop patterns:\n%v\n%v", a, b)
	}
	if !slices.IsSorted(a) {
		t.Errorf("without delay messages arrived out of order: %v", a)
	}
	// Binomial(2000, 0.7): mean 1400, sd 20.5.
	if len(a) < 1300 || len(a) > 1500 {
		t.Errorf("%d of %d arrived with Drop 0.3; want about 1400", len(a), n)
	}
	ws := st.Nodes[0]
	if s, d := ws.Sent[transport.Heartbeat].Messages, ws.Dropped[transport.Heartbeat].Messages; s != n || d != int64(n-len(a)) {
		t.Errorf("worker Sent %d Dropped %d; want %d and %d", s, d, n, n-len(a))
	}

	other := cfg
	other.Seed = 8
	if c, _ := pattern(t, other, n); slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 gave the same drop pattern")
	}
	// The drop pattern depends on the seed only, not on the delays.
	delayed := cfg
	delayed.Delay, delayed.Jitter = time.Millisecond, 5*time.Millisecond
	d, _ := pattern(t, delayed, n)
	slices.Sort(d)
	if !slices.Equal(a, d) {
		t.Errorf("adding delay and jitter changed which messages were dropped")
	}
}

func TestDuplicate(t *testing.T) {
	const n = 1000
	got, st := pattern(t, inproc.Config{Duplicate: 0.25, Seed: 3}, n)
	ws := st.Nodes[0]
	dups := ws.Duplicated[transport.Heartbeat].Messages
	if int64(len(got)) != n+dups {
		t.Errorf("received %d; want %d sent + %d duplicated", len(got), n, dups)
	}
	if dups < 200 || dups > 300 {
		t.Errorf("%d duplicates of %d with Duplicate 0.25; want about 250", dups, n)
	}
	seen := make(map[uint64]int)
	for _, s := range got {
		seen[s]++
	}
	if len(seen) != n {
		t.Errorf("%d distinct messages arrived; want all %d", len(seen), n)
	}
	tot := st.Total()
	if r := tot.Received.Total().Messages; r != int64(len(got)) {
		t.Errorf("Stats Received %d; want %d", r, len(got))
	}
}

// Delay is observed on the fake clock: a message arrives exactly Delay
// after it was sent, and with jitter within [Delay, Delay+Jitter), in
// arrival order.
func TestDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = 30 * time.Millisecond
		nw := newNetwork(t, inproc.Config{Delay: delay})
		c, _ := nw.Open(transport.Coordinator)
		w, _ := nw.Open(0)
		start := time.Now()
		if err := c.Send(t.Context(), &transport.Message{Kind: transport.Release, To: 0}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay / 2)
		if err := c.Send(t.Context(), &transport.Message{Kind: transport.Stop, To: 0}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []struct {
			kind transport.Kind
			at   time.Duration
		}{{transport.Release, delay}, {transport.Stop, delay + delay/2}} {
			m, err := w.Recv(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if m.Kind != want.kind || time.Since(start) != want.at {
				t.Errorf("received %v at %v; want %v at %v", m.Kind, time.Since(start), want.kind, want.at)
			}
		}
	})
	synctest.Test(t, func(t *testing.T) {
		const delay, jitter, n = 10 * time.Millisecond, 20 * time.Millisecond, 200
		nw := newNetwork(t, inproc.Config{Delay: delay, Jitter: jitter, Seed: 11})
		c, _ := nw.Open(transport.Coordinator)
		w, _ := nw.Open(0)
		start := time.Now()
		for i := range n {
			if err := w.Send(t.Context(), &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Seq: uint64(i)}); err != nil {
				t.Fatal(err)
			}
		}
		var seqs []uint64
		for range n {
			m, err := c.Recv(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if at := time.Since(start); at < delay || at >= delay+jitter {
				t.Errorf("seq %d arrived at %v; want in [%v, %v)", m.Seq, at, delay, delay+jitter)
			}
			seqs = append(seqs, m.Seq)
		}
		if slices.IsSorted(seqs) {
			t.Errorf("jitter %v did not reorder %d messages", jitter, n)
		}
	})
}

// A full queue blocks the sender until the receiver makes room or the
// sender's context ends.
func TestInboxFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nw := newNetwork(t, inproc.Config{Inbox: 2})
		c, _ := nw.Open(transport.Coordinator)
		w, _ := nw.Open(0)
		hb := func(seq uint64) *transport.Message {
			return &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Seq: seq}
		}
		for i := range 2 {
			if err := w.Send(t.Context(), hb(uint64(i))); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if err := w.Send(ctx, hb(2)); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Send to a full queue = %v; want context.DeadlineExceeded", err)
		}
		done := make(chan error)
		go func() { done <- w.Send(t.Context(), hb(3)) }()
		synctest.Wait() // blocked
		if m, err := c.Recv(t.Context()); err != nil || m.Seq != 0 {
			t.Fatalf("Recv = %v, %v; want seq 0", m, err)
		}
		if err := <-done; err != nil {
			t.Fatalf("blocked Send after Recv = %v", err)
		}
		for _, want := range []uint64{1, 3} {
			if m, err := c.Recv(t.Context()); err != nil || m.Seq != want {
				t.Fatalf("Recv = %v, %v; want seq %d", m, err, want)
			}
		}
		// A sender blocked on a full queue is released by its own Close.
		for i := range 2 {
			if err := w.Send(t.Context(), hb(uint64(10+i))); err != nil {
				t.Fatal(err)
			}
		}
		go func() { done <- w.Send(t.Context(), hb(12)) }()
		synctest.Wait()
		w.Close()
		if err := <-done; !errors.Is(err, transport.ErrClosed) {
			t.Fatalf("Send blocked when its endpoint closed = %v; want ErrClosed", err)
		}
		st := nw.Stats().Nodes[0]
		if s := st.Sent.Total().Messages; s != 5 {
			t.Errorf("Sent %d; want 5 (the two refused Sends are not counted)", s)
		}
	})
}

// Every message is received, dropped or in flight, and nothing is in
// flight after Close: Sent + Duplicated = Received + Dropped.
func TestConservation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nw := newNetwork(t, inproc.Config{Drop: 0.2, Duplicate: 0.2, Delay: time.Millisecond, Jitter: 3 * time.Millisecond, Seed: 5})
		c, _ := nw.Open(transport.Coordinator)
		var ws []transport.Endpoint
		for i := range 4 {
			w, _ := nw.Open(transport.NodeID(i))
			ws = append(ws, w)
		}
		sends := 0
		for i := range 400 {
			w := ws[i%4]
			if i <= 200 || i%4 != 3 { // worker 3 closes at 200
				if err := w.Send(t.Context(), &transport.Message{Kind: transport.Progress, To: transport.Coordinator, Points: int64(i)}); err != nil {
					t.Fatal(err)
				}
				sends++
			}
			if err := c.Send(t.Context(), &transport.Message{Kind: transport.Ack, To: w.ID(), Seq: uint64(i)}); err != nil {
				t.Fatal(err)
			}
			sends++
			if i%3 == 0 {
				time.Sleep(time.Millisecond)
			}
			if i == 200 {
				ws[3].Close() // queued messages are dropped; later ones too
			}
		}
		for range 100 {
			if _, err := c.Recv(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		nw.Close()
		tot := nw.Stats().Total()
		in := tot.Sent.Total().Messages + tot.Duplicated.Total().Messages
		out := tot.Received.Total().Messages + tot.Dropped.Total().Messages
		inB := tot.Sent.Total().Bytes + tot.Duplicated.Total().Bytes
		outB := tot.Received.Total().Bytes + tot.Dropped.Total().Bytes
		if in != out || inB != outB {
			t.Errorf("sent+duplicated = %d messages %d bytes; received+dropped = %d messages %d bytes", in, inB, out, outB)
		}
		if s := tot.Sent.Total().Messages; s != int64(sends) {
			t.Errorf("Sent %d; want %d", s, sends)
		}
	})
}

// A node that rejoins draws a fresh random stream: its second life does not
// replay the first one's drop pattern.
func TestReopenStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nw := newNetwork(t, inproc.Config{Drop: 0.5, Seed: 1})
		c, _ := nw.Open(transport.Coordinator)
		lives := make([][]uint64, 2)
		for life := range lives {
			w, _ := nw.Open(0)
			for i := range 64 {
				if err := w.Send(t.Context(), &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Seq: uint64(i)}); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			for {
				m, err := c.Recv(ctx)
				if err != nil {
					break
				}
				lives[life] = append(lives[life], m.Seq)
			}
			cancel()
			w.Close()
		}
		if slices.Equal(lives[0], lives[1]) {
			t.Errorf("both lives of worker 0 had the drop pattern %v", lives[0])
		}
	})
}

func TestErrorsNameTheMessage(t *testing.T) {
	l := algorithms.Layout{Params: 3, Delta: 3}
	nw := newNetwork(t, inproc.Config{Layout: l, MaxMessage: 30})
	c, _ := nw.Open(transport.Coordinator)
	_, _ = nw.Open(5)
	for _, tc := range []struct {
		m    *transport.Message
		want string
	}{
		{&transport.Message{Kind: transport.Ack, To: 9}, "inproc: coordinator: send ack to worker 9: transport: unknown node"},
		{&transport.Message{Kind: transport.Release, To: 5, Params: []float64{1, 2, 3}}, "inproc: coordinator: send release to worker 5: 38 bytes exceed the limit of 30: transport: message too large"},
		{&transport.Message{Kind: transport.Release, To: 5, Params: []float64{1}}, "inproc: coordinator: send: transport: release message to worker 5: 1 params, want 3 (or none): algorithms: layout mismatch"},
		{&transport.Message{Kind: transport.Release, To: 5, Params: []float64{1, nan(), 3}}, "inproc: coordinator: send: transport: release message to worker 5: algorithms: params entry 1 is NaN"},
	} {
		err := c.Send(t.Context(), tc.m)
		if got := fmt.Sprint(err); len(got) < len(tc.want) || got[:len(tc.want)] != tc.want {
			t.Errorf("Send(%v) = %q; want %q…", tc.m, got, tc.want)
		}
	}
}

// With jitter, arrival times depend only on the seed and each sender's own
// Sends, so even concurrent senders give the same trace every run.
func TestTraceDeterministic(t *testing.T) {
	trace := func(seed uint64) []string {
		var got []string
		synctest.Test(t, func(t *testing.T) {
			nw := newNetwork(t, inproc.Config{Seed: seed, Delay: time.Millisecond, Jitter: 20 * time.Millisecond, Drop: 0.1, Duplicate: 0.1})
			c, _ := nw.Open(transport.Coordinator)
			for i := range 4 {
				w, _ := nw.Open(transport.NodeID(i))
				go func() {
					for seq := range uint64(50) {
						if err := w.Send(t.Context(), &transport.Message{Kind: transport.Progress, To: transport.Coordinator, Seq: seq}); err != nil {
							t.Error(err)
						}
						time.Sleep(time.Duration(i+1) * 700 * time.Microsecond)
					}
				}()
			}
			start := time.Now()
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			for {
				m, err := c.Recv(ctx)
				if err != nil {
					break
				}
				got = append(got, fmt.Sprintf("%v %v#%d", time.Since(start), m.From, m.Seq))
			}
		})
		return got
	}
	a, b := trace(9), trace(9)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different traces:\n%v\n%v", a, b)
	}
	if len(a) < 150 {
		t.Errorf("only %d messages arrived", len(a))
	}
	if c := trace(10); slices.Equal(a, c) {
		t.Errorf("seeds 9 and 10 gave the same trace")
	}
}
