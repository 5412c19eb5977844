package storenet_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/storenet"
	"github.com/syncmodels/syncmodels/transport"
)

var layout = algorithms.Layout{Params: 8, Delta: 16}

func open(t *testing.T, n *storenet.Network, id transport.NodeID) transport.Endpoint {
	t.Helper()
	ep, err := n.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

func send(t *testing.T, ep transport.Endpoint, m *transport.Message) {
	t.Helper()
	if err := ep.Send(t.Context(), m); err != nil {
		t.Fatalf("%v: Send(%v) = %v", ep.ID(), m, err)
	}
}

func recv(t *testing.T, ep transport.Endpoint) *transport.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	m, err := ep.Recv(ctx)
	if err != nil {
		t.Fatalf("%v: Recv = %v", ep.ID(), err)
	}
	return m
}

func heartbeat(to transport.NodeID, seq uint64) *transport.Message {
	return &transport.Message{Kind: transport.Heartbeat, To: to, Seq: seq}
}

// commit returns a commit whose delta is dense (its encoding takes more
// than 8 bytes per entry).
func commit(seq uint64) *transport.Message {
	d := algorithms.NewDelta(layout)
	for i := range d.Vec {
		d.Vec[i] = float64(i) + float64(seq)/8
	}
	d.Count = 1
	return &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Seq: seq, Delta: d}
}

// accounted checks that every message sent was received or dropped.
func accounted(t *testing.T, n *storenet.Network) transport.NodeStats {
	t.Helper()
	tot := n.Stats().Total()
	s, r, d := tot.Sent.Total(), tot.Received.Total(), tot.Dropped.Total()
	if s.Messages != r.Messages+d.Messages || s.Bytes != r.Bytes+d.Bytes {
		t.Errorf("sent %+v, received %+v, dropped %+v: not every message is accounted for", s, r, d)
	}
	return tot
}

// A store that loses its data (exchange.Memory.Restart, as a Redis
// restarted without persistence) loses the notes not yet read: the
// receiver reports exactly which (a Loss naming the inbox, the epochs and
// the messages), counts them as dropped, and goes on in the new epoch.
func TestRestartLosesUnread(t *testing.T) {
	mem := exchange.NewMemory()
	var losses []storenet.Loss
	n := newNet(t, storenet.Config{Layout: layout, Dial: storenet.MemoryDial(mem, "job", exchange.Limits{}),
		OnLoss: func(l storenet.Loss) { losses = append(losses, l) }})
	defer n.Close()
	c, w := open(t, n, transport.Coordinator), open(t, n, 0)
	send(t, w, commit(1))
	send(t, w, commit(2))
	send(t, w, heartbeat(transport.Coordinator, 3))
	if m := recv(t, c); m.Seq != 1 {
		t.Fatalf("received %v; want commit 1", m)
	}
	// Commit 1 was read; the notes of commit 2 and the heartbeat were
	// fetched with it (one Read) but not handled: they are in memory, so
	// the receiver still delivers them.
	mem.Restart()
	send(t, w, commit(4)) // to the new epoch, after a recovery
	for _, want := range []uint64{2, 3, 4} {
		if m := recv(t, c); m.Seq != want {
			t.Fatalf("received %v; want seq %d", m, want)
		}
	}
	if len(losses) != 1 || losses[0].Kind != storenet.Restart || losses[0].Node != transport.Coordinator || losses[0].Messages.Total().Messages != 0 {
		t.Fatalf("losses %v; want one restart of the coordinator's inbox, nothing unread lost", losses)
	}

	// Now two messages are in the inbox, unread, when the store loses
	// its data: both are lost, and reported.
	send(t, w, commit(5))
	send(t, w, heartbeat(transport.Coordinator, 6))
	time.Sleep(10 * time.Millisecond)
	mem.Restart()
	send(t, w, heartbeat(transport.Coordinator, 7))
	if m := recv(t, c); m.Seq != 7 {
		t.Fatalf("received %v; want the heartbeat sent after the loss (seq 7)", m)
	}
	if len(losses) != 2 {
		t.Fatalf("losses %v; want a second", losses)
	}
	l := losses[1]
	if l.Kind != storenet.Restart || l.Messages[transport.Commit].Messages != 1 || l.Messages[transport.Heartbeat].Messages != 1 || l.Epoch == l.Now || l.Now == "" {
		t.Fatalf("loss %+v; want a restart that lost 1 commit and 1 heartbeat, naming both epochs", l)
	}
	if msg := l.Error(); !strings.Contains(msg, "lost 2 messages sent here (1 commit, 1 heartbeat)") || !strings.Contains(msg, "coordinator's inbox") {
		t.Errorf("loss reads %q", msg)
	}
	if !errors.Is(l, exchange.ErrLost) {
		t.Errorf("loss %v does not wrap exchange.ErrLost", l)
	}
	tot := accounted(t, n)
	if d := tot.Dropped.Total().Messages; d != 2 {
		t.Errorf("%d messages dropped; want the 2 lost", d)
	}
}

// A reader that falls behind the inbox's cap (Limits.MaxNotes) loses the
// oldest notes: it reports them (a Loss of kind Trimmed) and goes on with
// the ones kept.
func TestTrimmed(t *testing.T) {
	mem := exchange.NewMemory()
	n := newNet(t, storenet.Config{Layout: layout, Dial: storenet.MemoryDial(mem, "job", exchange.Limits{MaxNotes: 4})})
	defer n.Close()
	c, w := open(t, n, transport.Coordinator), open(t, n, 0)
	for seq := range uint64(10) {
		send(t, w, heartbeat(transport.Coordinator, seq))
	}
	// Notes 1 (the open marker) to 11: the inbox keeps 8 to 11.
	for _, want := range []uint64{6, 7, 8, 9} {
		if m := recv(t, c); m.Seq != want {
			t.Fatalf("received %v; want seq %d", m, want)
		}
	}
	ls := n.Losses()
	if len(ls) != 1 || ls[0].Kind != storenet.Trimmed || ls[0].From != 2 || ls[0].To != 7 || ls[0].Messages[transport.Heartbeat].Messages != 6 {
		t.Fatalf("losses %v; want notes 2 to 7 (6 heartbeats) trimmed", ls)
	}
	if !errors.Is(ls[0], exchange.ErrTrimmed) || !strings.Contains(ls[0].Error(), "notes 2 to 7 were dropped by its cap") {
		t.Errorf("loss %q", ls[0].Error())
	}
	if d := accounted(t, n).Dropped.Total().Messages; d != 6 {
		t.Errorf("%d dropped; want 6", d)
	}
}

// A message larger than Config.Inline goes to a blob, and the note holds
// its key, size and checksum; the receiver reads the blob and deletes it.
// A blob gone or corrupt makes its note unreadable: it is skipped and
// reported, and the next message arrives.
func TestBlobs(t *testing.T) {
	mem := exchange.NewMemory()
	n := newNet(t, storenet.Config{Layout: layout, Inline: 64, Dial: storenet.MemoryDial(mem, "job", exchange.Limits{})})
	defer n.Close()
	c, w := open(t, n, transport.Coordinator), open(t, n, 0)
	spy, err := mem.Open("job", exchange.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	blobs := func() []exchange.Note { // the notes that refer to a blob
		ns, err := spy.Read(t.Context(), "inbox/-1", 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		var out []exchange.Note
		for _, n := range ns {
			if n.Data[0] == 'b' {
				out = append(out, n)
			}
		}
		return out
	}
	key := func(n exchange.Note) string { // after the tag, the size and the checksum
		_, k := binary.Uvarint(n.Data[1:])
		return string(n.Data[1+k+4:])
	}

	big := commit(1)
	if big.Size() <= 64 {
		t.Fatalf("a commit of %d bytes is not above Inline", big.Size())
	}
	send(t, w, big)
	send(t, w, heartbeat(transport.Coordinator, 2)) // inline
	bn := blobs()
	if len(bn) != 1 {
		t.Fatalf("%d blob notes; want 1", len(bn))
	}
	if b, err := spy.Get(t.Context(), key(bn[0])); err != nil || len(b) != big.Size() {
		t.Fatalf("blob %q: %d bytes, %v; want the commit's %d", key(bn[0]), len(b), err, big.Size())
	}
	if m := recv(t, c); m.Seq != 1 || m.Delta == nil || m.Delta.Vec[3] != big.Delta.Vec[3] {
		t.Fatalf("received %v; want the commit", m)
	}
	if _, err := spy.Get(t.Context(), key(bn[0])); !errors.Is(err, exchange.ErrNotFound) {
		t.Errorf("the blob after it was read: %v; want it deleted", err)
	}
	if m := recv(t, c); m.Seq != 2 {
		t.Fatalf("received %v; want the heartbeat", m)
	}

	// A blob gone, then a blob corrupted: both notes skipped.
	send(t, w, commit(3))
	send(t, w, commit(4))
	send(t, w, heartbeat(transport.Coordinator, 5))
	bn = blobs()[1:]
	if err := spy.Delete(t.Context(), key(bn[0])); err != nil {
		t.Fatal(err)
	}
	if err := spy.Put(t.Context(), key(bn[1]), []byte("not the commit")); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, c); m.Seq != 5 {
		t.Fatalf("received %v; want the heartbeat after the two lost commits", m)
	}
	ls := n.Losses()
	if len(ls) != 2 || ls[0].Kind != storenet.Unreadable || ls[1].Kind != storenet.Unreadable ||
		!errors.Is(ls[0], exchange.ErrNotFound) || !errors.Is(ls[1], exchange.ErrMalformed) {
		t.Fatalf("losses %v; want a blob not found and a blob malformed", ls)
	}
	accounted(t, n)
	if st := n.StoreStats(); st.Requests == 0 || st.BytesWritten < int64(3*big.Size()) {
		t.Errorf("store stats %+v", st)
	}
}

// A note that is not this package's (a foreign writer) is skipped and
// reported; the inbox goes on.
func TestForeignNote(t *testing.T) {
	mem := exchange.NewMemory()
	n := newNet(t, storenet.Config{Layout: layout, Dial: storenet.MemoryDial(mem, "job", exchange.Limits{})})
	defer n.Close()
	c, w := open(t, n, transport.Coordinator), open(t, n, 0)
	spy, _ := mem.Open("job", exchange.Limits{})
	for _, note := range [][]byte{[]byte("xyz"), {}, []byte("m\x03garbage"), []byte("b\x05")} {
		if _, err := spy.Append(t.Context(), "inbox/-1", note); err != nil {
			t.Fatal(err)
		}
	}
	// A valid message to another node, in this inbox.
	other, _ := (&transport.Message{Kind: transport.Heartbeat, From: 0, To: 3}).AppendBinary([]byte{'m'})
	spy.Append(t.Context(), "inbox/-1", other)
	send(t, w, heartbeat(transport.Coordinator, 1))
	if m := recv(t, c); m.Seq != 1 || m.From != 0 {
		t.Fatalf("received %v; want the heartbeat", m)
	}
	ls := n.Losses()
	if len(ls) != 5 {
		t.Fatalf("losses %v; want the 5 notes skipped", ls)
	}
	for _, l := range ls {
		if l.Kind != storenet.Unreadable || !errors.Is(l, exchange.ErrMalformed) && !errors.Is(l, transport.ErrMalformed) {
			t.Errorf("loss %v", l)
		}
	}
}

// flaky is a store that fails every call with exchange.ErrUnavailable
// while down is set, as a Redis that cannot be reached.
type flaky struct {
	exchange.Store
	down  *atomic.Bool
	calls *atomic.Int64
}

func (f flaky) fail(op string) error {
	f.calls.Add(1)
	if f.down.Load() {
		return fmt.Errorf("flaky: %s: %w", op, exchange.ErrUnavailable)
	}
	return nil
}

func (f flaky) Append(ctx context.Context, topic string, note []byte) (uint64, error) {
	if err := f.fail("append"); err != nil {
		return 0, err
	}
	return f.Store.Append(ctx, topic, note)
}

func (f flaky) Read(ctx context.Context, topic string, after uint64, max int) ([]exchange.Note, error) {
	if err := f.fail("read"); err != nil {
		return nil, err
	}
	return f.Store.Read(ctx, topic, after, max)
}

// A store that cannot be reached drops what is sent (Send returns nil: a
// loss, reported as Unsent) and makes Recv wait; the endpoint backs off,
// so an outage costs a few store calls, not one per message, and traffic
// resumes when the store is back.
func TestUnavailable(t *testing.T) {
	mem := exchange.NewMemory()
	down, calls := &atomic.Bool{}, &atomic.Int64{}
	dial := func(ctx context.Context) (exchange.Store, error) {
		s, err := mem.Open("job", exchange.Limits{})
		return flaky{s, down, calls}, err
	}
	n := newNet(t, storenet.Config{Layout: layout, Dial: dial, Backoff: 10 * time.Millisecond})
	defer n.Close()
	c, w := open(t, n, transport.Coordinator), open(t, n, 0)
	down.Store(true)
	before := calls.Load()
	for seq := range uint64(100) {
		send(t, w, heartbeat(transport.Coordinator, seq))
	}
	if made := calls.Load() - before; made > 3 {
		t.Errorf("100 sends to a store that is down made %d calls; want a few (backoff)", made)
	}
	ls := n.Losses()
	if len(ls) != 100 || n.LossCount(storenet.Unsent) != 100 || ls[0].Kind != storenet.Unsent || !errors.Is(ls[0], exchange.ErrUnavailable) {
		t.Fatalf("%d losses (first %v); want 100 unsent, wrapping ErrUnavailable", len(ls), ls[0])
	}
	got := make(chan *transport.Message)
	go func() {
		m, _ := c.Recv(t.Context())
		got <- m
	}()
	time.Sleep(50 * time.Millisecond)
	down.Store(false)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := w.Send(t.Context(), heartbeat(transport.Coordinator, 100)); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-got:
			if m == nil || m.Seq != 100 {
				t.Fatalf("received %v; want seq 100", m)
			}
			n.Close() // what is still in the inbox is dropped
			tot := accounted(t, n)
			if d := tot.Dropped.Total().Messages; d < 100 {
				t.Errorf("%d dropped; want the 100 unsent at least", d)
			}
			return
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no message after the store came back")
		}
	}
}

// Networks in different processes share a namespace: each opens its own
// nodes, and a Send reaches a node opened by another once the store
// registers it. A node never opened anywhere is unknown.
func TestTwoNetworks(t *testing.T) {
	mem := exchange.NewMemory()
	dial := storenet.MemoryDial(mem, "job", exchange.Limits{})
	a, b := newNet(t, storenet.Config{Layout: layout, Dial: dial}), newNet(t, storenet.Config{Layout: layout, Dial: dial})
	defer a.Close()
	defer b.Close()
	c := open(t, a, transport.Coordinator)
	if err := c.Send(t.Context(), heartbeat(5, 1)); !errors.Is(err, transport.ErrUnknownNode) {
		t.Fatalf("Send to a node never opened = %v; want ErrUnknownNode", err)
	}
	w := open(t, b, 5)
	send(t, w, &transport.Message{Kind: transport.Join, To: transport.Coordinator, Incarnation: 1})
	if m := recv(t, c); m.Kind != transport.Join || m.From != 5 {
		t.Fatalf("coordinator received %v", m)
	}
	send(t, c, heartbeat(5, 2))
	if m := recv(t, w); m.Seq != 2 || m.From != transport.Coordinator {
		t.Fatalf("worker received %v", m)
	}
	// Each network counts its side.
	if s := a.Stats().Nodes[transport.Coordinator]; s.Sent.Total().Messages != 1 || s.Received.Total().Messages != 1 {
		t.Errorf("network a: %+v", s)
	}
	if _, ok := a.Stats().Nodes[5]; ok {
		t.Errorf("network a counts node 5, which it never opened")
	}
}

// A node closed here loses what is sent to it, counted as dropped; what
// was in its inbox is dropped too, and a reopened node starts empty.
func TestCloseDrops(t *testing.T) {
	n := newNet(t, storenet.Config{Layout: layout, Dial: storenet.MemoryDial(exchange.NewMemory(), "job", exchange.Limits{})})
	defer n.Close()
	c, w := open(t, n, transport.Coordinator), open(t, n, 2)
	send(t, c, heartbeat(2, 1))
	send(t, c, heartbeat(2, 2))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	send(t, c, heartbeat(2, 3))
	w = open(t, n, 2)
	send(t, c, heartbeat(2, 4))
	if m := recv(t, w); m.Seq != 4 {
		t.Fatalf("reopened node received %v; want seq 4", m)
	}
	if d := accounted(t, n).Dropped.Total().Messages; d != 3 {
		t.Errorf("%d dropped; want 3", d)
	}
}

// Bad configuration is refused with an error naming the field.
func TestConfig(t *testing.T) {
	dial := storenet.MemoryDial(exchange.NewMemory(), "job", exchange.Limits{})
	for _, c := range []struct {
		cfg  storenet.Config
		want string
	}{
		{storenet.Config{Layout: layout}, "Config.Dial"},
		{storenet.Config{Layout: algorithms.Layout{Params: -1}, Dial: dial}, "layout"},
		{storenet.Config{Layout: layout, Dial: dial, MaxMessage: -1}, "MaxMessage"},
		{storenet.Config{Layout: layout, Dial: dial, Inline: -2}, "Inline"},
		{storenet.Config{Layout: layout, Dial: dial, Batch: -1}, "Batch"},
		{storenet.Config{Layout: layout, Dial: dial, Backoff: -1}, "Backoff"},
		{storenet.Config{Layout: layout, Dial: dial, OpenTimeout: -1}, "OpenTimeout"},
	} {
		if _, err := storenet.New(c.cfg); !errors.Is(err, storenet.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v; want ErrConfig naming %s", c.cfg, err, c.want)
		}
	}
	for _, spec := range []string{"", "memory", "redis://127.0.0.1:6379", "rediss://h:1"} {
		if _, err := storenet.ParseExchange(spec, "job"); err != nil {
			t.Errorf("ParseExchange(%q) = %v", spec, err)
		}
	}
	for _, c := range []struct{ spec, ns string }{{"mem", "job"}, {"http://x", "job"}, {"memory", "a b"}} {
		if _, err := storenet.ParseExchange(c.spec, c.ns); !errors.Is(err, storenet.ErrConfig) {
			t.Errorf("ParseExchange(%q, %q) = %v; want ErrConfig", c.spec, c.ns, err)
		}
	}
	// A store that cannot be dialled fails Open, naming the node.
	n := newNet(t, storenet.Config{Layout: layout, Dial: func(context.Context) (exchange.Store, error) {
		return nil, errors.New("no store")
	}})
	if _, err := n.Open(3); err == nil || !strings.Contains(err.Error(), "worker 3") {
		t.Errorf("Open with a failing Dial = %v", err)
	}
	if _, err := n.Open(3); err == nil || errors.Is(err, transport.ErrAlreadyOpen) {
		t.Errorf("Open again after a failed Open = %v; want the dial error again", err)
	}
}
