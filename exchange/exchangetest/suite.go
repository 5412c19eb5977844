package exchangetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/exchange"
)

// Backend is a store server under test.
type Backend interface {
	// Open returns a new client of namespace ns with limits l. The
	// suite closes it.
	Open(t *testing.T, ns string, l exchange.Limits) exchange.Store
	// Restart makes the server lose all its data, as a restart without
	// persistence does, and returns once it serves again. Clients may
	// see exchange.ErrUnavailable while it is down.
	Restart(t *testing.T)
}

// Timing. A store must answer and wake waiters within wake; the suite
// waits quiet to see that a call stays blocked.
const (
	wake  = 5 * time.Second
	quiet = 50 * time.Millisecond
)

// Run runs the conformance suite that every exchange.Store passes, and the
// Peer's tests over it. newBackend returns a new, empty server for each
// subtest.
//
// The store tests check: Put, Get and Delete (copies, overwrites, empty
// values, absent keys, a second client, namespaces kept apart); names and
// arguments refused with ErrInput; size limits (ErrTooLarge, nothing
// written, the next call working); counting sets (idempotent arrivals,
// WaitCount blocking until the count, concurrent arrivals counted
// exactly); topics (numbering, order, max, blocking Read, the cap and
// ErrTrimmed); contexts (a done context does nothing, deadlines and
// cancellation end blocked calls); Close (ErrClosed, blocked calls
// released); a loss (every call refused with an EpochError until Recover,
// a refused write not applied, waiters woken, the new epoch shared by the
// clients that recover); concurrent clients. The Peer tests check updates
// through slots (inline and as blobs), keys and topics, dedup, invalid
// updates and malformed stored bytes refused with errors naming the key,
// barriers, and a loss reported and recovered from — including a store
// restarted in the middle of a peer-to-peer run, after which no peer has
// applied any update twice.
func Run(t *testing.T, newBackend func(t *testing.T) Backend) {
	s := suite{newBackend: newBackend}
	t.Run("PutGet", s.putGet)
	t.Run("Names", s.names)
	t.Run("TooLarge", s.tooLarge)
	t.Run("Counting", s.counting)
	t.Run("Topics", s.topics)
	t.Run("Trim", s.trim)
	t.Run("Context", s.context)
	t.Run("Close", s.close)
	t.Run("Lost", s.lost)
	t.Run("Concurrent", s.concurrent)
	t.Run("PeerPublish", s.peerPublish)
	t.Run("PeerInvalid", s.peerInvalid)
	t.Run("PeerMalformed", s.peerMalformed)
	t.Run("PeerPostNext", s.peerPostNext)
	t.Run("PeerBarrier", s.peerBarrier)
	t.Run("PeerLost", s.peerLost)
	t.Run("RestartMidRun", s.restartMidRun)
}

type suite struct {
	newBackend func(t *testing.T) Backend
}

// open returns a client that is closed when the test ends.
func open(t *testing.T, b Backend, ns string, l exchange.Limits) exchange.Store {
	t.Helper()
	c := b.Open(t, ns, l)
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close() = %v", err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("second Close() = %v; want nil", err)
		}
	})
	return c
}

// ctx returns a context that ends with the test or after wake.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), wake)
	t.Cleanup(cancel)
	return c
}

// must fails the test on err.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// wantErr checks that err wraps target and mentions each of names.
func wantErr(t *testing.T, what string, err, target error, names ...string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s = %v; want an error wrapping %v", what, err, target)
		return
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("%s = %q; want it to name %q", what, err, n)
		}
	}
}

// async runs f in a goroutine and returns a channel with its error.
func async(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

// blocked checks that nothing arrives on ch for a moment.
func blocked(t *testing.T, what string, ch <-chan error) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s returned %v; want it blocked", what, err)
	case <-time.After(quiet):
	}
}

// done waits for ch and returns its error.
func done(t *testing.T, what string, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(wake):
		t.Fatalf("%s still blocked after %v", what, wake)
		return nil
	}
}

func (s suite) putGet(t *testing.T) {
	b := s.newBackend(t)
	c1 := open(t, b, "ns", exchange.Limits{})
	c2 := open(t, b, "ns", exchange.Limits{})
	ctx := ctx(t)
	if c1.Epoch() == "" || c1.Epoch() != c2.Epoch() {
		t.Fatalf("epochs %q and %q; want one nonempty epoch", c1.Epoch(), c2.Epoch())
	}
	_, err := c1.Get(ctx, "a/1")
	wantErr(t, `Get("a/1") before Put`, err, exchange.ErrNotFound, `"a/1"`)

	in := []byte("hello")
	must(t, "Put", c1.Put(ctx, "a/1", in))
	in[0] = 'J' // the store kept a copy
	got, err := c2.Get(ctx, "a/1")
	if err != nil || string(got) != "hello" {
		t.Fatalf(`c2.Get("a/1") = %q, %v; want "hello"`, got, err)
	}
	got[0] = 'Y' // a copy was returned
	if got, _ := c1.Get(ctx, "a/1"); string(got) != "hello" {
		t.Errorf(`Get after changing the returned slice = %q; want "hello"`, got)
	}
	must(t, "overwrite", c2.Put(ctx, "a/1", []byte("world")))
	if got, err := c1.Get(ctx, "a/1"); err != nil || string(got) != "world" {
		t.Errorf(`Get after overwrite = %q, %v; want "world"`, got, err)
	}
	must(t, "Put empty", c1.Put(ctx, "empty", nil))
	if got, err := c2.Get(ctx, "empty"); err != nil || len(got) != 0 {
		t.Errorf(`Get("empty") = %q, %v; want an empty value`, got, err)
	}
	// Binary values are stored byte for byte.
	bin := []byte{0, 1, 0xff, '\r', '\n', 0}
	must(t, "Put binary", c1.Put(ctx, "bin", bin))
	if got, err := c2.Get(ctx, "bin"); err != nil || !bytes.Equal(got, bin) {
		t.Errorf(`Get("bin") = %v, %v; want %v`, got, err, bin)
	}
	must(t, "Delete", c2.Delete(ctx, "a/1"))
	_, err = c1.Get(ctx, "a/1")
	wantErr(t, "Get after Delete", err, exchange.ErrNotFound)
	must(t, "Delete of an absent key", c1.Delete(ctx, "a/1"))

	other := open(t, b, "other", exchange.Limits{})
	_, err = other.Get(ctx, "bin")
	wantErr(t, "Get from another namespace", err, exchange.ErrNotFound)
	must(t, "Put in another namespace", other.Put(ctx, "bin", []byte("x")))
	if got, _ := c1.Get(ctx, "bin"); !bytes.Equal(got, bin) {
		t.Errorf("a Put in another namespace changed this one's value to %q", got)
	}
}

func (s suite) names(t *testing.T) {
	b := s.newBackend(t)
	c := open(t, b, "ns", exchange.Limits{})
	ctx := ctx(t)
	for _, name := range []string{"", "a b", "{tag}", "é", "a\x00b", "new\nline", strings.Repeat("k", exchange.MaxName+1)} {
		calls := map[string]error{
			"Put":    c.Put(ctx, name, []byte("v")),
			"Delete": c.Delete(ctx, name),
		}
		_, calls["Get"] = c.Get(ctx, name)
		_, calls["Arrive"] = c.Arrive(ctx, name, "m")
		_, calls["Arrive (member)"] = c.Arrive(ctx, "set", name)
		_, calls["Count"] = c.Count(ctx, name)
		_, calls["WaitCount"] = c.WaitCount(ctx, name, 1)
		_, calls["Append"] = c.Append(ctx, name, []byte("n"))
		_, calls["Read"] = c.Read(ctx, name, 0, 1)
		for call, err := range calls {
			wantErr(t, fmt.Sprintf("%s(%q)", call, name), err, exchange.ErrInput)
		}
	}
	if n, err := c.Count(ctx, "set"); err != nil || n != 0 {
		t.Errorf(`Count("set") = %d, %v after refused arrivals; want 0`, n, err)
	}
	_, err := c.Read(ctx, "topic", 0, 0)
	wantErr(t, "Read(max 0)", err, exchange.ErrInput, `"topic"`)
	must(t, "a valid name after refusals", c.Put(ctx, "Az09._/:=@+-", []byte("v")))
}

func (s suite) tooLarge(t *testing.T) {
	b := s.newBackend(t)
	small := open(t, b, "ns", exchange.Limits{MaxValue: 64})
	big := open(t, b, "ns", exchange.Limits{MaxValue: 128})
	ctx := ctx(t)
	must(t, "Put of MaxValue bytes", small.Put(ctx, "k", bytes.Repeat([]byte("a"), 64)))
	err := small.Put(ctx, "k", bytes.Repeat([]byte("b"), 65))
	wantErr(t, "Put of MaxValue+1 bytes", err, exchange.ErrTooLarge, `"k"`, "65")
	if got, _ := small.Get(ctx, "k"); !bytes.Equal(got, bytes.Repeat([]byte("a"), 64)) {
		t.Errorf("value after a refused Put = %q; want the 64 a's kept", got)
	}
	_, err = small.Append(ctx, "t", bytes.Repeat([]byte("n"), 65))
	wantErr(t, "Append of MaxValue+1 bytes", err, exchange.ErrTooLarge, `"t"`)
	if n, err := small.Append(ctx, "t", []byte("ok")); err != nil || n != 1 {
		t.Errorf("Append after a refused one = %d, %v; want note 1", n, err)
	}
	// A value within the writer's limit but beyond the reader's is not
	// transferred.
	must(t, "big Put", big.Put(ctx, "big", bytes.Repeat([]byte("c"), 100)))
	_, err = small.Get(ctx, "big")
	wantErr(t, "Get of 100 bytes with MaxValue 64", err, exchange.ErrTooLarge, `"big"`)
	if got, err := big.Get(ctx, "big"); err != nil || len(got) != 100 {
		t.Errorf("Get with MaxValue 128 = %d bytes, %v; want 100", len(got), err)
	}
}

func (s suite) counting(t *testing.T) {
	b := s.newBackend(t)
	c1 := open(t, b, "ns", exchange.Limits{})
	c2 := open(t, b, "ns", exchange.Limits{})
	ctx := ctx(t)
	for _, step := range []struct {
		c      exchange.Store
		member string
		want   int
	}{{c1, "a", 1}, {c1, "a", 1}, {c2, "a", 1}, {c2, "b", 2}, {c1, "b", 2}} {
		if n, err := step.c.Arrive(ctx, "r/1", step.member); err != nil || n != step.want {
			t.Errorf("Arrive(r/1, %s) = %d, %v; want %d", step.member, n, err, step.want)
		}
	}
	if n, err := c2.Count(ctx, "r/1"); err != nil || n != 2 {
		t.Errorf("Count(r/1) = %d, %v; want 2", n, err)
	}
	if n, err := c2.Count(ctx, "never"); err != nil || n != 0 {
		t.Errorf("Count(never) = %d, %v; want 0", n, err)
	}
	for _, want := range []int{-1, 0, 1, 2} {
		if n, err := c1.WaitCount(ctx, "r/1", want); err != nil || n != 2 {
			t.Errorf("WaitCount(r/1, %d) = %d, %v; want 2 at once", want, n, err)
		}
	}

	// WaitCount blocks until the count is reached, by arrivals of other
	// clients; repeated arrivals do not reach it.
	ch := async(func() error {
		n, err := c1.WaitCount(ctx, "r/2", 3)
		if err == nil && n < 3 {
			err = fmt.Errorf("WaitCount returned %d", n)
		}
		return err
	})
	blocked(t, "WaitCount(r/2, 3) with no arrival", ch)
	for _, m := range []string{"x", "y", "x", "y"} {
		if _, err := c2.Arrive(ctx, "r/2", m); err != nil {
			t.Fatal(err)
		}
	}
	blocked(t, "WaitCount(r/2, 3) with 2 members", ch)
	if _, err := c2.Arrive(ctx, "r/2", "z"); err != nil {
		t.Fatal(err)
	}
	must(t, "WaitCount(r/2, 3) after the third member", done(t, "WaitCount", ch))

	// Concurrent arrivals, each member twice, from as many clients: each
	// counts once.
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		c := open(t, b, "ns", exchange.Limits{})
		wg.Go(func() {
			for range 2 {
				if _, err := c.Arrive(ctx, "r/3", fmt.Sprint("m", i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	if got, err := c1.WaitCount(ctx, "r/3", n); err != nil || got != n {
		t.Errorf("WaitCount(r/3, %d) = %d, %v", n, got, err)
	}
	wg.Wait()
	if got, err := c1.Count(ctx, "r/3"); err != nil || got != n {
		t.Errorf("Count(r/3) = %d, %v after %d members arrived twice; want %d", got, err, n, n)
	}
}

func (s suite) topics(t *testing.T) {
	b := s.newBackend(t)
	c1 := open(t, b, "ns", exchange.Limits{})
	c2 := open(t, b, "ns", exchange.Limits{})
	ctx := ctx(t)
	for i, note := range []string{"one", "", "three"} {
		if n, err := c1.Append(ctx, "t", []byte(note)); err != nil || n != uint64(i+1) {
			t.Fatalf("Append(t, %q) = %d, %v; want %d", note, n, err, i+1)
		}
	}
	if n, err := c2.Append(ctx, "u", []byte("other")); err != nil || n != 1 {
		t.Errorf("Append(u) = %d, %v; want note 1 (topics are numbered apart)", n, err)
	}
	check := func(after uint64, max int, want ...string) {
		t.Helper()
		notes, err := c2.Read(ctx, "t", after, max)
		if err != nil {
			t.Fatalf("Read(t, after %d, max %d) = %v", after, max, err)
		}
		got := make([]string, len(notes))
		for i, n := range notes {
			got[i] = fmt.Sprintf("%d:%s", n.Seq, n.Data)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Read(t, after %d, max %d) = %v; want %v", after, max, got, want)
		}
	}
	check(0, 10, "1:one", "2:", "3:three")
	check(1, 1, "2:")
	check(2, 5, "3:three")
	notes, _ := c2.Read(ctx, "t", 0, 1)
	notes[0].Data[0] = 'X' // a copy
	check(0, 1, "1:one")

	ch := async(func() error {
		notes, err := c2.Read(ctx, "t", 3, 10)
		if err == nil && (len(notes) != 1 || notes[0].Seq != 4 || string(notes[0].Data) != "four") {
			err = fmt.Errorf("Read returned %v", notes)
		}
		return err
	})
	blocked(t, "Read(t, after 3)", ch)
	if _, err := c1.Append(ctx, "u", []byte("not t")); err != nil {
		t.Fatal(err)
	}
	blocked(t, "Read(t, after 3) after an append to another topic", ch)
	if _, err := c1.Append(ctx, "t", []byte("four")); err != nil {
		t.Fatal(err)
	}
	must(t, "Read(t, after 3) after note 4", done(t, "Read", ch))
	// Reading a topic never written blocks too.
	ch = async(func() error { _, err := c2.Read(ctx, "never", 0, 1); return err })
	blocked(t, "Read(never)", ch)
	if _, err := c1.Append(ctx, "never", []byte("now")); err != nil {
		t.Fatal(err)
	}
	must(t, "Read(never) after an append", done(t, "Read", ch))
}

func (s suite) trim(t *testing.T) {
	b := s.newBackend(t)
	c := open(t, b, "ns", exchange.Limits{MaxNotes: 3})
	ctx := ctx(t)
	for i := 1; i <= 5; i++ {
		if _, err := c.Append(ctx, "t", []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Read(ctx, "t", 0, 10)
	var te *exchange.TrimmedError
	if !errors.As(err, &te) || te.From != 1 || te.To != 2 || te.Topic != "t" {
		t.Fatalf("Read(t, after 0) = %v; want notes 1 to 2 trimmed", err)
	}
	wantErr(t, "Read of trimmed notes", err, exchange.ErrTrimmed, `"t"`)
	_, err = c.Read(ctx, "t", 1, 10)
	if !errors.As(err, &te) || te.From != 2 || te.To != 2 {
		t.Errorf("Read(t, after 1) = %v; want note 2 trimmed", err)
	}
	notes, err := c.Read(ctx, "t", 2, 10)
	if err != nil || len(notes) != 3 || notes[0].Seq != 3 || notes[2].Seq != 5 {
		t.Errorf("Read(t, after 2) = %v, %v; want notes 3 to 5", notes, err)
	}
}

func (s suite) context(t *testing.T) {
	b := s.newBackend(t)
	c := open(t, b, "ns", exchange.Limits{})
	live := ctx(t)
	dead, cancel := context.WithCancel(t.Context())
	cancel()
	calls := map[string]error{
		"Put":    c.Put(dead, "k", []byte("v")),
		"Delete": c.Delete(dead, "k"),
		"Check":  c.Check(dead),
	}
	_, calls["Get"] = c.Get(dead, "k")
	_, calls["Arrive"] = c.Arrive(dead, "set", "m")
	_, calls["Count"] = c.Count(dead, "set")
	_, calls["WaitCount"] = c.WaitCount(dead, "set", 0)
	_, calls["Append"] = c.Append(dead, "t", []byte("n"))
	_, calls["Read"] = c.Read(dead, "t", 0, 1)
	_, calls["Recover"] = c.Recover(dead)
	for call, err := range calls {
		wantErr(t, call+" with a done context", err, context.Canceled)
	}
	_, err := c.Get(live, "k")
	wantErr(t, "Get after a Put with a done context", err, exchange.ErrNotFound)
	if n, err := c.Count(live, "set"); err != nil || n != 0 {
		t.Errorf("Count after an Arrive with a done context = %d, %v; want 0", n, err)
	}
	if n, err := c.Append(live, "t", []byte("first")); err != nil || n != 1 {
		t.Errorf("Append after an Append with a done context = %d, %v; want note 1", n, err)
	}

	short, cancel := context.WithTimeout(live, 30*time.Millisecond)
	defer cancel()
	_, err = c.WaitCount(short, "set", 1)
	wantErr(t, "WaitCount past its deadline", err, context.DeadlineExceeded, `"set"`)
	short, cancel = context.WithTimeout(live, 30*time.Millisecond)
	defer cancel()
	_, err = c.Read(short, "t", 1, 1)
	wantErr(t, "Read past its deadline", err, context.DeadlineExceeded, `"t"`)

	cctx, cancel := context.WithCancel(live)
	ch := async(func() error { _, err := c.Read(cctx, "t", 1, 1); return err })
	ch2 := async(func() error { _, err := c.WaitCount(cctx, "set", 1); return err })
	blocked(t, "Read", ch)
	cancel()
	wantErr(t, "Read cancelled", done(t, "cancelled Read", ch), context.Canceled)
	wantErr(t, "WaitCount cancelled", done(t, "cancelled WaitCount", ch2), context.Canceled)
}

func (s suite) close(t *testing.T) {
	b := s.newBackend(t)
	c := b.Open(t, "ns", exchange.Limits{})
	other := open(t, b, "ns", exchange.Limits{})
	ctx := ctx(t)
	must(t, "Put", c.Put(ctx, "k", []byte("v")))
	ch := async(func() error { _, err := c.WaitCount(ctx, "set", 1); return err })
	ch2 := async(func() error { _, err := c.Read(ctx, "t", 0, 1); return err })
	blocked(t, "WaitCount", ch)
	must(t, "Close", c.Close())
	must(t, "second Close", c.Close())
	wantErr(t, "WaitCount blocked at Close", done(t, "WaitCount", ch), exchange.ErrClosed)
	wantErr(t, "Read blocked at Close", done(t, "Read", ch2), exchange.ErrClosed)
	calls := map[string]error{"Put": c.Put(ctx, "k", []byte("w")), "Delete": c.Delete(ctx, "k"), "Check": c.Check(ctx)}
	_, calls["Get"] = c.Get(ctx, "k")
	_, calls["Arrive"] = c.Arrive(ctx, "set", "m")
	_, calls["Count"] = c.Count(ctx, "set")
	_, calls["WaitCount"] = c.WaitCount(ctx, "set", 0)
	_, calls["Append"] = c.Append(ctx, "t", nil)
	_, calls["Read"] = c.Read(ctx, "t", 0, 1)
	_, calls["Recover"] = c.Recover(ctx)
	for call, err := range calls {
		wantErr(t, call+" after Close", err, exchange.ErrClosed)
	}
	if got, err := other.Get(ctx, "k"); err != nil || string(got) != "v" {
		t.Errorf("another client's Get after Close = %q, %v; want the data kept", got, err)
	}
}

func (s suite) lost(t *testing.T) {
	b := s.newBackend(t)
	c1 := open(t, b, "ns", exchange.Limits{})
	c2 := open(t, b, "ns", exchange.Limits{})
	ctx := ctx(t)
	old := c1.Epoch()
	must(t, "Put", c1.Put(ctx, "k", []byte("v")))
	if _, err := c1.Arrive(ctx, "set", "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := c1.Append(ctx, "t", []byte("n1")); err != nil {
		t.Fatal(err)
	}
	waiting := async(func() error { _, err := c2.WaitCount(ctx, "set", 2); return err })
	reading := async(func() error { _, err := c2.Read(ctx, "t", 1, 1); return err })
	blocked(t, "WaitCount(set, 2)", waiting)

	b.Restart(t)

	// Blocked calls wake with the loss.
	for what, ch := range map[string]<-chan error{"WaitCount": waiting, "Read": reading} {
		err := done(t, what+" across the restart", ch)
		var ee *exchange.EpochError
		if !errors.As(err, &ee) || ee.Was != old {
			t.Errorf("%s across the restart = %v; want an EpochError from epoch %s", what, err, old)
		}
	}
	// Every call is refused, writes are not applied.
	calls := map[string]error{"Put": c1.Put(ctx, "x", []byte("lost?")), "Delete": c1.Delete(ctx, "k"), "Check": c1.Check(ctx)}
	_, calls["Get"] = c1.Get(ctx, "k")
	_, calls["Arrive"] = c1.Arrive(ctx, "set", "b")
	_, calls["Count"] = c1.Count(ctx, "set")
	_, calls["WaitCount"] = c1.WaitCount(ctx, "set", 0)
	_, calls["Append"] = c1.Append(ctx, "t", []byte("n2"))
	_, calls["Read"] = c1.Read(ctx, "t", 0, 1)
	for call, err := range calls {
		wantErr(t, call+" after the restart", err, exchange.ErrLost, old)
		var ee *exchange.EpochError
		if errors.As(err, &ee) && (ee.Was != old || ee.Now != "") {
			t.Errorf("%s after the restart: epochs %q → %q; want %q → none", call, ee.Was, ee.Now, old)
		}
	}
	if c1.Epoch() != old {
		t.Errorf("Epoch() = %q before Recover; want %q kept", c1.Epoch(), old)
	}

	now, err := c1.Recover(ctx)
	if err != nil || now == "" || now == old || c1.Epoch() != now {
		t.Fatalf("Recover() = %q, %v (Epoch %q); want a new epoch, not %q", now, err, c1.Epoch(), old)
	}
	for _, k := range []string{"k", "x"} {
		_, err := c1.Get(ctx, k)
		wantErr(t, fmt.Sprintf("Get(%q) in the new epoch", k), err, exchange.ErrNotFound)
	}
	if n, err := c1.Count(ctx, "set"); err != nil || n != 0 {
		t.Errorf("Count(set) in the new epoch = %d, %v; want 0 (the refused arrival not applied)", n, err)
	}
	if n, err := c1.Append(ctx, "t", []byte("again")); err != nil || n != 1 {
		t.Errorf("Append in the new epoch = %d, %v; want note 1", n, err)
	}
	must(t, "Put in the new epoch", c1.Put(ctx, "k2", []byte("new")))

	// The other client still refuses, naming the new epoch, until it
	// recovers; then it sees the new data.
	_, err = c2.Get(ctx, "k2")
	var ee *exchange.EpochError
	if !errors.As(err, &ee) || ee.Was != old || ee.Now != now {
		t.Errorf("c2.Get after c1's Recover = %v; want epochs %s → %s", err, old, now)
	}
	if e, err := c2.Recover(ctx); err != nil || e != now {
		t.Errorf("c2.Recover() = %q, %v; want %q", e, err, now)
	}
	if got, err := c2.Get(ctx, "k2"); err != nil || string(got) != "new" {
		t.Errorf("c2.Get(k2) after Recover = %q, %v", got, err)
	}
	if e, err := c2.Recover(ctx); err != nil || e != now {
		t.Errorf("a second Recover = %q, %v; want %q unchanged", e, err, now)
	}
	must(t, "Check", c2.Check(ctx))
	// A client opened now joins the new epoch.
	if c3 := open(t, b, "ns", exchange.Limits{}); c3.Epoch() != now {
		t.Errorf("a new client's epoch = %q; want %q", c3.Epoch(), now)
	}
}

func (s suite) concurrent(t *testing.T) {
	b := s.newBackend(t)
	ctx := ctx(t)
	const clients, ops = 4, 25
	var wg sync.WaitGroup
	for i := range clients {
		c := open(t, b, "ns", exchange.Limits{})
		wg.Go(func() {
			for j := range ops {
				key := fmt.Sprintf("k/%d", j%5)
				if err := c.Put(ctx, key, []byte(fmt.Sprint(i, j))); err != nil {
					t.Error(err)
				}
				if _, err := c.Get(ctx, key); err != nil {
					t.Error(err)
				}
				if _, err := c.Append(ctx, "t", []byte(fmt.Sprint(i, "/", j))); err != nil {
					t.Error(err)
				}
				if _, err := c.Arrive(ctx, "set", fmt.Sprint(i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	c := open(t, b, "ns", exchange.Limits{})
	if n, err := c.Count(ctx, "set"); err != nil || n != clients {
		t.Errorf("Count(set) = %d, %v; want %d", n, err, clients)
	}
	seen := map[string]bool{}
	var after uint64
	for after < clients*ops {
		notes, err := c.Read(ctx, "t", after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range notes {
			if n.Seq != after+1 {
				t.Fatalf("note %d after note %d", n.Seq, after)
			}
			after = n.Seq
			if seen[string(n.Data)] {
				t.Errorf("note %q appended twice", n.Data)
			}
			seen[string(n.Data)] = true
		}
	}
	if len(seen) != clients*ops {
		t.Errorf("%d distinct notes; want %d", len(seen), clients*ops)
	}
}
