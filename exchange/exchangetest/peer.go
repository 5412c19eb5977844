package exchangetest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/transport"
)

// Layout is the layout of the suite's updates.
var Layout = algorithms.Layout{Params: 40, Delta: 40}

// Job is the suite's job.
const Job = 7

// Value is entry i of update seq of peer: a dyadic rational, so sums are
// exact in any order; never zero.
func Value(peer transport.NodeID, seq uint64, i int) float64 {
	return float64(int(peer)+2) + float64(float64(seq)/8) + float64(float64(i)/1024)
}

// Update returns update seq of peer, a Commit message of Layout whose
// delta holds Value(peer, seq, i), its Clock and Version seq.
func Update(peer transport.NodeID, seq uint64) *transport.Message {
	d := algorithms.NewDelta(Layout)
	for i := range d.Vec {
		d.Vec[i] = Value(peer, seq, i)
	}
	d.Count = 1
	return &transport.Message{Kind: transport.Commit, From: peer, Job: Job, Seq: seq, Version: seq, Clock: seq, Points: 1, Delta: d}
}

// CheckUpdate reports whether m is update seq of peer as Update made it
// (in incarnation inc).
func CheckUpdate(m *transport.Message, peer transport.NodeID, inc uint32, seq uint64) error {
	if m == nil {
		return fmt.Errorf("no update; want %v seq %d", peer, seq)
	}
	if got, want := exchange.IDOf(m), (exchange.UpdateID{Job: Job, Peer: peer, Incarnation: inc, Seq: seq}); got != want {
		return fmt.Errorf("update %v; want %v", got, want)
	}
	if m.Kind != transport.Commit || m.Clock != seq || m.Version != seq || m.Points != 1 || m.Delta == nil || m.Delta.Count != 1 {
		return fmt.Errorf("update %v: header %v; want as sent", exchange.IDOf(m), m)
	}
	for i, v := range m.Delta.Vec {
		if v != Value(peer, seq, i) {
			return fmt.Errorf("update %v: delta entry %d = %v; want %v", exchange.IDOf(m), i, v, Value(peer, seq, i))
		}
	}
	return nil
}

// peer returns a Peer of the suite's job on a new client of b.
func peer(t *testing.T, b Backend, id transport.NodeID, cfg exchange.Config, l exchange.Limits) *exchange.Peer {
	t.Helper()
	cfg.Job, cfg.ID, cfg.Layout = Job, id, Layout
	p, err := exchange.New(open(t, b, "job", l), cfg)
	if err != nil {
		t.Fatalf("New(%v) = %v", id, err)
	}
	return p
}

// wantUpdate fails unless m is update seq of peer (incarnation 0).
func wantUpdate(t *testing.T, what string, m *transport.Message, err error, peer transport.NodeID, seq uint64) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s = %v; want %v seq %d", what, err, peer, seq)
	}
	if err := CheckUpdate(m, peer, 0, seq); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

func (s suite) peerPublish(t *testing.T) {
	b := s.newBackend(t)
	w := peer(t, b, 1, exchange.Config{}, exchange.Limits{})
	wb := peer(t, b, 2, exchange.Config{Inline: -1}, exchange.Limits{})
	r := peer(t, b, 3, exchange.Config{}, exchange.Limits{})
	ctx := ctx(t)

	_, err := r.Latest(ctx, 1)
	wantErr(t, "Latest(1) before any Publish", err, exchange.ErrNotFound, `"latest/1"`)
	if m, err := r.Fresh(ctx, 1); m != nil || err != nil {
		t.Errorf("Fresh(1) before any Publish = %v, %v; want nothing", m, err)
	}
	// The peer stamps its header; Seq is the caller's.
	m := Update(1, 1)
	m.From, m.Job, m.Incarnation = 9, 99, 4
	id, err := w.Publish(ctx, m)
	if want := (exchange.UpdateID{Job: Job, Peer: 1, Seq: 1}); err != nil || id != want {
		t.Fatalf("Publish = %v, %v; want %v", id, err, want)
	}
	if m.From != 9 || m.Job != 99 {
		t.Errorf("Publish changed the caller's message: %v", m)
	}
	for range 2 { // reads do not consume
		got, err := r.Latest(ctx, 1)
		wantUpdate(t, "Latest(1)", got, err, 1, 1)
	}
	got, err := r.Fresh(ctx, 1)
	wantUpdate(t, "Fresh(1)", got, err, 1, 1)
	if got, err := r.Fresh(ctx, 1); got != nil || err != nil {
		t.Errorf("Fresh(1) again = %v, %v; want nothing new", got, err)
	}
	if _, err := w.Publish(ctx, Update(1, 2)); err != nil {
		t.Fatal(err)
	}
	got, err = r.Fresh(ctx, 1)
	wantUpdate(t, "Fresh(1) after seq 2", got, err, 1, 2)

	// Blobs: the slot holds a reference; the last Retain (2) blobs stay.
	for seq := uint64(1); seq <= 5; seq++ {
		if _, err := wb.Publish(ctx, Update(2, seq)); err != nil {
			t.Fatal(err)
		}
	}
	got, err = r.Latest(ctx, 2)
	wantUpdate(t, "Latest(2) through a blob", got, err, 2, 5)
	for seq := 1; seq <= 5; seq++ {
		key := fmt.Sprintf("blob/2/0/%d", seq)
		_, err := r.Store().Get(ctx, key)
		if kept := seq >= 4; kept != (err == nil) {
			t.Errorf("Get(%q) = %v; want kept %v (Retain 2)", key, err, kept)
		}
	}
	slot, _ := r.Store().Get(ctx, "latest/2")
	if len(slot) > 100 || slot[0] != 'R' {
		t.Errorf("slot of a blob-publishing peer holds %d bytes starting %q; want a short reference", len(slot), slot[:1])
	}
	// A retry republishes; a smaller Seq is refused.
	if _, err := wb.Publish(ctx, Update(2, 5)); err != nil {
		t.Errorf("Publish of seq 5 again = %v; want a retry accepted", err)
	}
	_, err = wb.Publish(ctx, Update(2, 4))
	wantErr(t, "Publish of seq 4 after seq 5", err, exchange.ErrInput, `"latest/2"`, "seq 4")
	got, err = r.Latest(ctx, 2)
	wantUpdate(t, "Latest(2) after a refused Publish", got, err, 2, 5)

	// A new incarnation's updates are newer whatever their Seq.
	w1 := peer(t, b, 1, exchange.Config{Incarnation: 1}, exchange.Limits{})
	if _, err := w1.Publish(ctx, Update(1, 1)); err != nil {
		t.Fatal(err)
	}
	got, err = r.Fresh(ctx, 1)
	if err != nil || CheckUpdate(got, 1, 1, 1) != nil {
		t.Errorf("Fresh(1) after incarnation 1's seq 1 = %v, %v; want it", got, err)
	}
	st := r.Stats()
	if st.Received != 3 || st.Duplicates != 1 || st.Requests == 0 || st.BytesRead == 0 {
		t.Errorf("reader's Stats = %+v; want 3 received, 1 duplicate, requests and bytes counted", st)
	}
	if st := wb.Stats(); st.Published != 6 || st.BytesWritten == 0 {
		t.Errorf("writer's Stats = %+v; want 6 published", st)
	}
}

func (s suite) peerInvalid(t *testing.T) {
	b := s.newBackend(t)
	w := peer(t, b, 1, exchange.Config{}, exchange.Limits{})
	r := peer(t, b, 3, exchange.Config{}, exchange.Limits{})
	ctx := ctx(t)
	if _, err := w.Publish(ctx, Update(1, 1)); err != nil {
		t.Fatal(err)
	}
	nan := Update(1, 2)
	nan.Delta.Vec[7] = math.NaN()
	_, err := w.Publish(ctx, nan)
	wantErr(t, "Publish of a NaN", err, exchange.ErrInput, `"latest/1"`, "entry 7")
	if !errors.Is(err, algorithms.ErrNonFinite) {
		t.Errorf("Publish of a NaN = %v; want it to wrap algorithms.ErrNonFinite", err)
	}
	inf := Update(1, 2)
	inf.Delta.Vec[0] = math.Inf(-1)
	_, err = w.Post(ctx, "grads", inf)
	wantErr(t, "Post of -Inf", err, exchange.ErrInput, `"grads"`)
	_, err = w.Put(ctx, "model", inf)
	wantErr(t, "Put of -Inf", err, exchange.ErrInput, `"model"`)
	short := Update(1, 2)
	short.Delta = algorithms.NewDelta(algorithms.Layout{Delta: 39})
	_, err = w.Publish(ctx, short)
	wantErr(t, "Publish of a delta of another layout", err, algorithms.ErrLayout, `"latest/1"`)
	noDelta := Update(1, 2)
	noDelta.Delta = nil
	_, err = w.Publish(ctx, noDelta)
	wantErr(t, "Publish without a delta", err, exchange.ErrInput)
	hb := &transport.Message{Kind: transport.Heartbeat, Seq: 2}
	_, err = w.Publish(ctx, hb)
	wantErr(t, "Publish of a heartbeat", err, exchange.ErrInput)
	_, err = w.Publish(ctx, nil)
	wantErr(t, "Publish(nil)", err, exchange.ErrInput)
	_, err = w.Put(ctx, "latest/5", Update(1, 2))
	wantErr(t, `Put("latest/5")`, err, exchange.ErrInput)
	_, err = w.Post(ctx, "bad topic", Update(1, 2))
	wantErr(t, `Post("bad topic")`, err, exchange.ErrInput)

	// Nothing was written: the slot still holds seq 1, the topic and the
	// key are empty, and seq 2 is still free.
	got, err := r.Latest(ctx, 1)
	wantUpdate(t, "Latest(1) after refused updates", got, err, 1, 1)
	_, err = r.Get(ctx, "model")
	wantErr(t, `Get("model")`, err, exchange.ErrNotFound)
	short2, cancel := context.WithTimeout(ctx, quiet)
	defer cancel()
	_, err = r.Store().Read(short2, "grads", 0, 1)
	wantErr(t, "Read(grads) after a refused Post", err, context.DeadlineExceeded)
	if _, err := w.Publish(ctx, Update(1, 2)); err != nil {
		t.Errorf("Publish(seq 2) after refusals = %v", err)
	}

	// Oversized: refused by the store, naming the key; nothing written.
	small := peer(t, b, 4, exchange.Config{}, exchange.Limits{MaxValue: 200})
	_, err = small.Publish(ctx, Update(4, 1))
	wantErr(t, "Publish beyond MaxValue", err, exchange.ErrTooLarge, `"latest/4"`)
	smallBlob := peer(t, b, 5, exchange.Config{Inline: -1}, exchange.Limits{MaxValue: 200})
	_, err = smallBlob.Publish(ctx, Update(5, 1))
	wantErr(t, "Publish of a blob beyond MaxValue", err, exchange.ErrTooLarge, `"blob/5/0/1"`)
	for _, id := range []transport.NodeID{4, 5} {
		_, err := r.Latest(ctx, id)
		wantErr(t, fmt.Sprintf("Latest(%v) after an oversized Publish", id), err, exchange.ErrNotFound)
	}
	// A reader whose limit is below the stored value's size.
	tiny := peer(t, b, 6, exchange.Config{}, exchange.Limits{MaxValue: 100})
	_, err = tiny.Latest(ctx, 1)
	wantErr(t, "Latest beyond the reader's MaxValue", err, exchange.ErrTooLarge, `"latest/1"`)

	// Configurations.
	if _, err := exchange.New(nil, exchange.Config{Layout: Layout}); !errors.Is(err, exchange.ErrConfig) {
		t.Errorf("New(nil store) = %v; want ErrConfig", err)
	}
	for _, cfg := range []exchange.Config{
		{ID: -2, Layout: Layout},
		{Layout: algorithms.Layout{}},
		{Layout: Layout, Inline: -2},
		{Layout: Layout, Retain: -1},
		{Layout: Layout, Remember: -1},
	} {
		if _, err := exchange.New(r.Store(), cfg); !errors.Is(err, exchange.ErrConfig) {
			t.Errorf("New(%+v) = %v; want ErrConfig", cfg, err)
		}
	}
}

// Ref returns a reference envelope in the format envelope.go documents.
func Ref(id exchange.UpdateID, version, clock uint64, blob []byte, key string) []byte {
	b := []byte{'R'}
	b = binary.AppendUvarint(b, id.Job)
	b = binary.AppendVarint(b, int64(id.Peer))
	b = binary.AppendUvarint(b, uint64(id.Incarnation))
	b = binary.AppendUvarint(b, id.Seq)
	b = binary.AppendUvarint(b, version)
	b = binary.AppendUvarint(b, clock)
	b = binary.AppendUvarint(b, uint64(len(blob)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(blob, crc32.MakeTable(crc32.Castagnoli)))
	b = binary.AppendUvarint(b, uint64(len(key)))
	return append(b, key...)
}

// encode returns m's encoding.
func encode(t *testing.T, m *transport.Message) []byte {
	t.Helper()
	b, err := m.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (s suite) peerMalformed(t *testing.T) {
	b := s.newBackend(t)
	r := peer(t, b, 3, exchange.Config{}, exchange.Limits{})
	raw := r.Store()
	ctx := ctx(t)
	good := encode(t, Update(4, 8))
	otherJob := Update(4, 8)
	otherJob.Job = 8
	otherPeer := Update(5, 8)
	withNaN := slices.Clone(good)
	// Patch the last entry's float64 (the delta's values end the
	// encoding) to NaN.
	binary.LittleEndian.PutUint64(withNaN[len(withNaN)-8:], math.Float64bits(math.NaN()))
	id := exchange.UpdateID{Job: Job, Peer: 4, Seq: 8}
	badSum := Ref(id, 8, 8, good, "blob/x")
	badSum[len(badSum)-len("blob/x")-2] ^= 1 // a checksum byte
	cases := []struct {
		name       string
		slot, blob []byte
		target     error
		names      []string
	}{
		{"empty", []byte{}, nil, exchange.ErrMalformed, nil},
		{"unknown tag", []byte("X123"), nil, exchange.ErrMalformed, []string{"tag"}},
		{"garbage", append([]byte{'M'}, "garbage"...), nil, transport.ErrMalformed, nil},
		{"truncated", append([]byte{'M'}, good[:len(good)-3]...), nil, transport.ErrMalformed, nil},
		{"NaN", append([]byte{'M'}, withNaN...), nil, transport.ErrMalformed, []string{"NaN"}},
		{"other job", append([]byte{'M'}, encode(t, otherJob)...), nil, exchange.ErrMalformed, []string{"job 8"}},
		{"other peer", append([]byte{'M'}, encode(t, otherPeer)...), nil, exchange.ErrMalformed, []string{"worker 5"}},
		{"not an update", append([]byte{'M'}, encode(t, &transport.Message{Kind: transport.Heartbeat, From: 4, Job: Job})...), nil, exchange.ErrMalformed, []string{"heartbeat"}},
		{"truncated ref", Ref(id, 8, 8, good, "blob/x")[:6], nil, exchange.ErrMalformed, nil},
		{"trailing bytes", append(Ref(id, 8, 8, good, "blob/x"), 0), nil, exchange.ErrMalformed, []string{"trailing"}},
		{"bad key", Ref(id, 8, 8, good, "blob x"), nil, exchange.ErrMalformed, nil},
		{"ref of another job", Ref(exchange.UpdateID{Job: 8, Peer: 4, Seq: 8}, 8, 8, good, "blob/x"), good, exchange.ErrMalformed, []string{"job 8"}},
		{"ref of another peer", Ref(exchange.UpdateID{Job: Job, Peer: 5, Seq: 8}, 8, 8, good, "blob/x"), good, exchange.ErrMalformed, nil},
		{"missing blob", Ref(id, 8, 8, good, "blob/missing"), nil, exchange.ErrNotFound, []string{`"blob/missing"`}},
		{"wrong size", Ref(id, 8, 8, good[1:], "blob/x"), good, exchange.ErrMalformed, []string{`"blob/x"`}},
		{"wrong checksum", badSum, good, exchange.ErrMalformed, []string{`"blob/x"`, "checksum"}},
		{"blob of another update", Ref(exchange.UpdateID{Job: Job, Peer: 4, Seq: 9}, 9, 9, good, "blob/x"), good, exchange.ErrMalformed, []string{`"blob/x"`}},
		{"blob with a NaN", Ref(id, 8, 8, withNaN, "blob/x"), withNaN, transport.ErrMalformed, []string{`"blob/x"`, "NaN"}},
	}
	for _, c := range cases {
		must(t, c.name, raw.Delete(ctx, "blob/x"))
		if c.blob != nil {
			must(t, c.name, raw.Put(ctx, "blob/x", c.blob))
		}
		must(t, c.name, raw.Put(ctx, "latest/4", c.slot))
		_, err := r.Latest(ctx, 4)
		wantErr(t, "Latest(4) of "+c.name, err, c.target, append([]string{`"latest/4"`}, c.names...)...)
		m, err := r.Fresh(ctx, 4)
		if m != nil || !errors.Is(err, c.target) {
			t.Errorf("Fresh(4) of %s = %v, %v; want %v", c.name, m, err, c.target)
		}
		_, err = r.Get(ctx, "latest/4")
		if !errors.Is(err, c.target) && c.name != "other peer" && c.name != "ref of another peer" { // Get accepts any peer
			t.Errorf("Get(latest/4) of %s = %v; want %v", c.name, err, c.target)
		}
	}
	// Nothing was admitted: a valid update is fresh.
	must(t, "valid slot", raw.Put(ctx, "latest/4", append([]byte{'M'}, good...)))
	m, err := r.Fresh(ctx, 4)
	wantUpdate(t, "Fresh(4) of a valid update after malformed ones", m, err, 4, 8)
	must(t, "valid blob", raw.Put(ctx, "blob/x", good))
	must(t, "valid ref", raw.Put(ctx, "latest/4", Ref(id, 8, 8, good, "blob/x")))
	m, err = r.Latest(ctx, 4)
	wantUpdate(t, "Latest(4) through a hand-made reference", m, err, 4, 8)
	if st := r.Stats(); st.Received != 1 {
		t.Errorf("Stats().Received = %d; want 1", st.Received)
	}
}

func (s suite) peerPostNext(t *testing.T) {
	b := s.newBackend(t)
	w := peer(t, b, 1, exchange.Config{}, exchange.Limits{})
	wb := peer(t, b, 2, exchange.Config{Inline: -1}, exchange.Limits{})
	r := peer(t, b, 3, exchange.Config{}, exchange.Limits{})
	ctx := ctx(t)
	post := func(p *exchange.Peer, topic string, seq uint64) {
		t.Helper()
		if _, err := p.Post(ctx, topic, Update(p.Config().ID, seq)); err != nil {
			t.Fatalf("Post(%s, %v seq %d) = %v", topic, p.Config().ID, seq, err)
		}
	}
	next := func(topic string, max int, want ...exchange.UpdateID) {
		t.Helper()
		ms, err := r.Next(ctx, topic, max)
		if err != nil {
			t.Fatalf("Next(%s) = %v", topic, err)
		}
		var got []exchange.UpdateID
		for _, m := range ms {
			got = append(got, exchange.IDOf(m))
			if err := CheckUpdate(m, m.From, 0, m.Seq); err != nil {
				t.Error(err)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("Next(%s, %d) = %v; want %v", topic, max, got, want)
		}
	}
	id := func(p transport.NodeID, seq uint64) exchange.UpdateID {
		return exchange.UpdateID{Job: Job, Peer: p, Seq: seq}
	}
	post(w, "grads", 1)
	post(wb, "grads", 1)
	post(w, "grads", 2)
	next("grads", 10, id(1, 1), id(2, 1), id(1, 2))
	// A retried post is appended again and returned once.
	post(w, "grads", 2)
	post(wb, "grads", 2)
	next("grads", 10, id(2, 2))
	if st := r.Stats(); st.Duplicates != 1 || st.Received != 4 {
		t.Errorf("Stats = %+v; want 1 duplicate, 4 received", st)
	}
	_, err := w.Post(ctx, "grads", Update(1, 1))
	wantErr(t, "Post of seq 1 after seq 2", err, exchange.ErrInput, `"grads"`)

	// A malformed note is skipped and reported; the next is read.
	if _, err := r.Store().Append(ctx, "grads", []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	_, err = r.Next(ctx, "grads", 10)
	var ne *exchange.NoteError
	if !errors.As(err, &ne) || ne.Topic != "grads" || ne.Seq != 6 || !errors.Is(err, exchange.ErrMalformed) {
		t.Errorf("Next over a malformed note = %v; want a NoteError for note 6", err)
	}
	post(w, "grads", 3)
	post(w, "grads", 4)
	post(w, "grads", 5)
	next("grads", 2, id(1, 3), id(1, 4))
	next("grads", 2, id(1, 5))

	// Next blocks until a post.
	ch := async(func() error {
		ms, err := r.Next(ctx, "grads", 1)
		if err == nil && (len(ms) != 1 || exchange.IDOf(ms[0]) != id(2, 3)) {
			err = fmt.Errorf("Next returned %v", ms)
		}
		return err
	})
	blocked(t, "Next with nothing posted", ch)
	post(wb, "grads", 3)
	must(t, "Next after a post", done(t, "Next", ch))

	// A post's blob leaves with the writer's Remember window: a reader
	// that lags behind it skips the note, naming the blob.
	lag := peer(t, b, 5, exchange.Config{Inline: -1, Remember: 2}, exchange.Limits{})
	for seq := uint64(1); seq <= 3; seq++ {
		post(lag, "lag", seq)
	}
	_, err = r.Next(ctx, "lag", 10)
	if !errors.As(err, &ne) || ne.Seq != 1 || !errors.Is(err, exchange.ErrNotFound) {
		t.Errorf("Next(lag) = %v; want note 1 skipped, its blob gone", err)
	}
	wantErr(t, "Next(lag)", err, exchange.ErrNotFound, `"post/lag/5/0/1"`)
	next("lag", 10, id(5, 2), id(5, 3))

	// Put and Get.
	if _, err := w.Put(ctx, "model/1", Update(1, 7)); err != nil {
		t.Fatal(err)
	}
	m, err := r.Get(ctx, "model/1")
	wantUpdate(t, `Get("model/1")`, m, err, 1, 7)
	_, err = r.Get(ctx, "nope")
	wantErr(t, `Get("nope")`, err, exchange.ErrNotFound, `"nope"`)
	must(t, "Delete", w.Delete(ctx, "model/1"))
	_, err = r.Get(ctx, "model/1")
	wantErr(t, "Get after Delete", err, exchange.ErrNotFound)
}

func (s suite) peerBarrier(t *testing.T) {
	b := s.newBackend(t)
	ctx := ctx(t)
	const n = 3
	var wg sync.WaitGroup
	counts := make([]int, n)
	for i := range n {
		p := peer(t, b, transport.NodeID(i), exchange.Config{}, exchange.Limits{})
		wg.Go(func() {
			for range 2 { // arriving twice counts once
				if _, err := p.Arrive(ctx, "round/1"); err != nil {
					t.Error(err)
				}
			}
			got, err := p.WaitCount(ctx, "round/1", n)
			if err != nil {
				t.Error(err)
			}
			counts[i] = got
		})
	}
	wg.Wait()
	if !slices.Equal(counts, []int{n, n, n}) {
		t.Errorf("WaitCount returned %v; want %d each", counts, n)
	}
}

func (s suite) peerLost(t *testing.T) {
	b := s.newBackend(t)
	w := peer(t, b, 1, exchange.Config{}, exchange.Limits{})
	wb := peer(t, b, 2, exchange.Config{Inline: -1}, exchange.Limits{})
	r := peer(t, b, 3, exchange.Config{}, exchange.Limits{})
	ctx := ctx(t)
	for _, seq := range []uint64{1, 2} {
		if _, err := w.Publish(ctx, Update(1, seq)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := wb.Publish(ctx, Update(2, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Put(ctx, "model/1", Update(1, 3)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Post(ctx, "grads", Update(1, 4)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Arrive(ctx, "round/1"); err != nil {
		t.Fatal(err)
	}
	m, err := r.Fresh(ctx, 1)
	wantUpdate(t, "Fresh(1)", m, err, 1, 2)
	ms, err := r.Next(ctx, "grads", 10)
	if err != nil || len(ms) != 1 {
		t.Fatalf("Next(grads) = %v, %v", ms, err)
	}
	old := r.Store().Epoch()

	b.Restart(t)

	// Each peer names what it lost.
	var le *exchange.LostError
	_, err = eventually(t, func() (any, error) { return w.Publish(ctx, Update(1, 5)) })
	if !errors.As(err, &le) {
		t.Fatalf("Publish after the restart = %v; want a LostError", err)
	}
	wantErr(t, "Publish after the restart", err, exchange.ErrLost, old, `"latest/1"`, "model/1", "round/1", "grads")
	u := func(seq uint64) exchange.UpdateID { return exchange.UpdateID{Job: Job, Peer: 1, Seq: seq} }
	if le.Peer != 1 || le.Cause.Was != old ||
		!slices.Equal(le.Keys, []string{"latest/1", "model/1"}) ||
		!slices.Equal(le.Updates, []exchange.UpdateID{u(2), u(3), u(4)}) ||
		!slices.Equal(le.Topics, []string{"grads"}) || !slices.Equal(le.Barriers, []string{"round/1"}) || le.Read != nil {
		t.Errorf("writer's LostError = %+v; want keys latest/1, model/1, updates seq 2, 3, 4, topic grads, barrier round/1", le)
	}
	_, err = eventually(t, func() (any, error) { return nil, wb.Check(ctx) })
	if !errors.As(err, &le) || !slices.Equal(le.Keys, []string{"blob/2/0/1", "latest/2"}) {
		t.Errorf("blob writer's Check after the restart = %v; want keys blob/2/0/1, latest/2 lost", err)
	}
	_, err = eventually(t, func() (any, error) { return r.Fresh(ctx, 2) })
	if !errors.As(err, &le) || len(le.Keys) != 0 || le.Read["grads"] != 1 {
		t.Errorf("reader's Fresh after the restart = %v; want nothing written, grads read to note 1", err)
	}

	// Recover restores what each peer holds, with the same IDs.
	for _, p := range []*exchange.Peer{r, w, wb} {
		must(t, fmt.Sprintf("Recover(%v)", p.Config().ID), p.Recover(ctx))
	}
	now := r.Store().Epoch()
	if now == old || w.Store().Epoch() != now || wb.Store().Epoch() != now {
		t.Errorf("epochs after Recover: %s, %s, %s (was %s); want one new epoch", r.Store().Epoch(), w.Store().Epoch(), wb.Store().Epoch(), old)
	}
	if m, err := r.Fresh(ctx, 1); m != nil || err != nil {
		t.Errorf("Fresh(1) of the restored seq 2, returned before the loss = %v, %v; want nothing", m, err)
	}
	m, err = r.Latest(ctx, 1)
	wantUpdate(t, "Latest(1) restored", m, err, 1, 2)
	m, err = r.Fresh(ctx, 2)
	wantUpdate(t, "Fresh(2) restored, never read", m, err, 2, 1)
	m, err = r.Get(ctx, "model/1")
	wantUpdate(t, "Get(model/1) restored", m, err, 1, 3)
	if n, err := r.Count(ctx, "round/1"); err != nil || n != 1 {
		t.Errorf("Count(round/1) restored = %d, %v; want 1", n, err)
	}
	if _, err := w.Post(ctx, "grads", Update(1, 6)); err != nil {
		t.Fatal(err)
	}
	ms, err = r.Next(ctx, "grads", 10)
	if err != nil || len(ms) != 1 || CheckUpdate(ms[0], 1, 0, 6) != nil {
		t.Errorf("Next(grads) after Recover = %v, %v; want seq 6 only (the restored seq 4 was returned before)", ms, err)
	}
	if _, err := w.Publish(ctx, Update(1, 5)); err != nil {
		t.Errorf("Publish after Recover = %v", err)
	}
	if st := w.Stats(); st.Losses != 1 {
		t.Errorf("writer's Stats().Losses = %d; want 1", st.Losses)
	}
	if st := r.Stats(); st.Duplicates != 2 {
		t.Errorf("reader's Stats().Duplicates = %d; want 2 (Fresh and Next of restored updates)", st.Duplicates)
	}
}

// eventually calls f until it returns something other than
// ErrUnavailable (a store restarting), for up to wake.
func eventually[T any](t *testing.T, f func() (T, error)) (T, error) {
	t.Helper()
	deadline := time.Now().Add(wake)
	for {
		v, err := f()
		if !errors.Is(err, exchange.ErrUnavailable) || time.Now().After(deadline) {
			return v, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}
