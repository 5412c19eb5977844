package transport_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/filter"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/transporttest"
)

var testLayouts = []struct {
	name string
	l    algorithms.Layout
}{
	{"empty", algorithms.Layout{}},
	{"dense", algorithms.Layout{Params: 17, Delta: 23}},
	{"sparse", algorithms.Layout{Params: 40, Delta: 61, Block: 4}},
	{"block=1", algorithms.Layout{Params: 5, Delta: 300, Block: 1}},
	{"wide", algorithms.Layout{Params: 200, Delta: 1000, Block: 50}},
}

// Every random message round-trips exactly, Size is its encoding's
// length, Validate accepts it, and a second encoding is byte-identical:
// 500 messages per layout, about 50 of each kind (FuzzUnmarshal explores
// further).
func TestRoundTrip(t *testing.T) {
	for _, tl := range testLayouts {
		t.Run(tl.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			for i := range 500 {
				k := transport.Kinds()[i%len(transport.Kinds())]
				m := transporttest.RandomMessage(rng, tl.l, k)
				if err := m.Validate(tl.l); err != nil {
					t.Fatalf("Validate(%v) = %v", m, err)
				}
				prefix := []byte("prefix")
				b, err := m.AppendBinary(prefix)
				if err != nil {
					t.Fatalf("AppendBinary(%v) = %v", m, err)
				}
				if !bytes.HasPrefix(b, []byte("prefix")) {
					t.Fatalf("AppendBinary overwrote the buffer it appends to")
				}
				b = b[len(prefix):]
				if got := m.Size(); got != len(b) {
					t.Fatalf("Size(%v) = %d; want len(AppendBinary) = %d", m, got, len(b))
				}
				if ms := m.MaxSize(); ms < len(b) || m.Delta == nil && ms != len(b) {
					t.Fatalf("MaxSize(%v) = %d; Size %d", m, ms, len(b))
				}
				got, err := transport.Unmarshal(b, tl.l)
				if err != nil {
					t.Fatalf("Unmarshal(AppendBinary(%v)) = %v", m, err)
				}
				if d := transporttest.Diff(m, got); d != "" {
					t.Fatalf("round trip of %v (-sent +received):\n%s", m, d)
				}
				b2, err := got.AppendBinary(nil)
				if err != nil || !bytes.Equal(b, b2) {
					t.Fatalf("re-encoding differs: %v\n%x\n%x", err, b, b2)
				}
			}
		})
	}
}

// The size of a delta follows filter.AppendDelta's choice of form, on
// hand-picked edge cases as well as random ones.
func TestSizeDeltaForms(t *testing.T) {
	l := algorithms.Layout{Delta: 200, Block: 10}
	cases := map[string]func(d *algorithms.Delta){
		"none live":            func(d *algorithms.Delta) {},
		"live but zero":        func(d *algorithms.Delta) { d.Touch(3) },
		"one entry":            func(d *algorithms.Delta) { d.Touch(19); d.Vec[199] = 1 },
		"big gap":              func(d *algorithms.Delta) { d.Touch(0); d.Touch(19); d.Vec[0], d.Vec[199] = 1, 2 },
		"all":                  func(d *algorithms.Delta) { fill(d, 0, 200) },
		"negative zero":        func(d *algorithms.Delta) { d.Touch(2); d.Vec[25] = math.Copysign(0, -1) },
		"huge count":           func(d *algorithms.Delta) { d.Count = math.MaxInt },
		"touched out of order": func(d *algorithms.Delta) { d.Touch(5); d.Touch(1); d.Vec[55], d.Vec[11] = 1, 2 },
	}
	for n := 170; n <= 200; n++ { // around the dense/explicit tie
		cases[fmt.Sprintf("%d of 200", n)] = func(d *algorithms.Delta) { fill(d, 0, n) }
	}
	for name, set := range cases {
		d := algorithms.NewDelta(l)
		set(d)
		m := &transport.Message{Kind: transport.Commit, Delta: d}
		want, err := filter.AppendDelta(nil, d, filter.Float64)
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Size() != len(b) || !bytes.HasSuffix(b, want) {
			t.Errorf("%s: Size() = %d, len(AppendBinary) = %d; the delta's encoding must be filter.AppendDelta's", name, m.Size(), len(b))
		}
	}
}

func fill(d *algorithms.Delta, lo, hi int) {
	for i := lo; i < hi; i++ {
		d.Vec[i] = float64(i + 1)
		d.Touch(i / d.BlockWidth())
	}
}

// A release with a local timer round-trips it, costs exactly the timer's
// varint more than one without, and prints it.
func TestTimerRoundTrip(t *testing.T) {
	l := algorithms.Layout{Params: 2}
	for _, timer := range []time.Duration{1, 127, 128, 3*time.Millisecond + 7, time.Duration(math.MaxInt64)} {
		m := &transport.Message{Kind: transport.Release, To: 1, Clock: 4, Version: 4, Params: []float64{1, -2}, Timer: timer}
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatalf("AppendBinary(%v) = %v", m, err)
		}
		got, err := transport.Unmarshal(b, l)
		if err != nil {
			t.Fatalf("Unmarshal(AppendBinary(%v)) = %v", m, err)
		}
		if got.Timer != timer {
			t.Errorf("timer %v decodes as %v", timer, got.Timer)
		}
		if d := transporttest.Diff(m, got); d != "" {
			t.Errorf("round trip of %v (-sent +received):\n%s", m, d)
		}
		plain := *m
		plain.Timer = 0
		if d, want := m.Size()-plain.Size(), len(binary.AppendUvarint(nil, uint64(timer))); d != want || m.Size() != len(b) {
			t.Errorf("timer %v adds %d bytes (Size %d, encoded %d); want %d", timer, d, m.Size(), len(b), want)
		}
		if s := m.String(); !strings.Contains(s, "timer="+timer.String()) {
			t.Errorf("String() = %q; want it to show timer=%v", s, timer)
		}
	}
}

// A batch number round-trips on every kind that carries one, after a
// timer and before a delta, costs exactly its varint (nothing for batch
// 0), and prints.
func TestBatchRoundTrip(t *testing.T) {
	l := algorithms.Layout{Params: 2, Delta: 3}
	d := algorithms.NewDelta(l)
	d.Vec[1], d.Count = 2.5, 50
	for _, m := range []*transport.Message{
		{Kind: transport.Release, To: 1, Clock: 4, Budget: 100, Params: []float64{1, -2}, Timer: time.Millisecond},
		{Kind: transport.Commit, From: 1, To: transport.Coordinator, Seq: 3, Points: 100, Delta: d},
		{Kind: transport.Batch, From: 2, To: transport.Coordinator, Incarnation: 2},
		{Kind: transport.Batch, To: 2, Incarnation: 2},
		{Kind: transport.Join, To: 2, Incarnation: 3, Seq: 9},
	} {
		for _, batch := range []uint64{0, 1, 127, 128, 1 << 40, math.MaxUint64} {
			m.Batch = batch
			b, err := m.AppendBinary(nil)
			if err != nil {
				t.Fatalf("AppendBinary(%v) = %v", m, err)
			}
			got, err := transport.Unmarshal(b, l)
			if err != nil {
				t.Fatalf("Unmarshal(AppendBinary(%v)) = %v", m, err)
			}
			if d := transporttest.Diff(m, got); d != "" {
				t.Errorf("round trip of %v (-sent +received):\n%s", m, d)
			}
			plain := *m
			plain.Batch = 0
			want := 0
			if batch != 0 {
				want = len(binary.AppendUvarint(nil, batch))
			}
			if d := m.Size() - plain.Size(); d != want || m.Size() != len(b) {
				t.Errorf("%v: batch %d adds %d bytes (Size %d, encoded %d); want %d", m.Kind, batch, d, m.Size(), len(b), want)
			}
			if s := m.String(); batch != 0 && !strings.Contains(s, fmt.Sprintf("batch=%d", batch)) {
				t.Errorf("String() = %q; want it to show batch=%d", s, batch)
			}
		}
	}
}

// A heartbeat with every header field zero is 14 bytes, as documented.
func TestMinimalSize(t *testing.T) {
	m := &transport.Message{Kind: transport.Heartbeat}
	b, err := m.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{transport.FormatVersion, byte(transport.Heartbeat), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if !bytes.Equal(b, want) || m.Size() != 14 {
		t.Errorf("AppendBinary(%v) = %v (Size %d); want %v", m, b, m.Size(), want)
	}
	m.Params, m.Kind = []float64{1, 2}, transport.Release
	if got := m.Size(); got != 14+16 {
		t.Errorf("Size of a release with 2 params = %d; want 30", got)
	}
}

func TestEncodeErrors(t *testing.T) {
	l := algorithms.Layout{Params: 3, Delta: 6, Block: 2}
	delta := func(set func(d *algorithms.Delta)) *algorithms.Delta {
		d := algorithms.NewDelta(l)
		set(d)
		return d
	}
	for _, c := range []struct {
		name   string
		m      transport.Message
		want   error  // from AppendBinary and Validate
		layout bool   // only Validate fails, with ErrLayout
		text   string // in the error
	}{
		{name: "kind 0", m: transport.Message{}, want: transport.ErrMalformed, text: "unknown kind 0"},
		{name: "kind 12", m: transport.Message{Kind: 12}, want: transport.ErrMalformed, text: "unknown kind 12"},
		{name: "From -2", m: transport.Message{Kind: transport.Ack, From: -2}, want: transport.ErrMalformed, text: "From -2"},
		{name: "To too big", m: transport.Message{Kind: transport.Ack, To: transport.MaxNode + 1}, want: transport.ErrMalformed, text: "To 2147483648"},
		{name: "negative points", m: transport.Message{Kind: transport.Commit, Points: -3}, want: transport.ErrMalformed, text: "Points -3"},
		{name: "long reason", m: transport.Message{Kind: transport.Stop, Reason: strings.Repeat("é", transport.MaxReason/2+1)}, want: transport.ErrMalformed, text: "Reason of 4098 bytes"},
		{name: "bad UTF-8", m: transport.Message{Kind: transport.Reject, Reason: "ok\xc3"}, want: transport.ErrMalformed, text: "not valid UTF-8"},
		{name: "params on stop", m: transport.Message{Kind: transport.Stop, Params: []float64{1, 2, 3}}, want: transport.ErrMalformed, text: "3 params on a stop message"},
		{name: "delta on release", m: transport.Message{Kind: transport.Release, Delta: algorithms.NewDelta(l)}, want: transport.ErrMalformed, text: "a delta on a release message"},
		{name: "NaN param", m: transport.Message{Kind: transport.Release, Params: []float64{0, math.NaN(), 0}}, want: transport.ErrMalformed, text: "params entry 1 is NaN"},
		{name: "Inf param", m: transport.Message{Kind: transport.Release, Params: []float64{math.Inf(1), 0, 0}}, want: transport.ErrMalformed, text: "params entry 0 is +Inf"},
		{name: "NaN delta", m: transport.Message{Kind: transport.Commit, Delta: delta(func(d *algorithms.Delta) { d.Touch(2); d.Vec[5] = math.NaN() })}, want: transport.ErrMalformed, text: "delta entry 5 is NaN"},
		{name: "negative count", m: transport.Message{Kind: transport.Leave, Delta: delta(func(d *algorithms.Delta) { d.Count = -1 })}, want: transport.ErrMalformed, text: "delta count -1"},
		{name: "short params", m: transport.Message{Kind: transport.Release, Params: []float64{1, 2}}, layout: true, text: "2 params, want 3"},
		{name: "dense delta", m: transport.Message{Kind: transport.Commit, Delta: algorithms.NewDelta(algorithms.Layout{Delta: 6})}, layout: true, text: "delta len 6 block 0, want len 6 block 2"},
		{name: "timer on commit", m: transport.Message{Kind: transport.Commit, Timer: time.Millisecond}, want: transport.ErrMalformed, text: "Timer 1ms on a commit message"},
		{name: "timer on interrupt", m: transport.Message{Kind: transport.Interrupt, Timer: 1}, want: transport.ErrMalformed, text: "Timer 1ns on a interrupt message"},
		{name: "negative timer", m: transport.Message{Kind: transport.Release, Timer: -time.Second}, want: transport.ErrMalformed, text: "Timer -1s is negative"},
		{name: "batch on ack", m: transport.Message{Kind: transport.Ack, Batch: 3}, want: transport.ErrMalformed, text: "Batch 3 on a ack message"},
		{name: "batch on heartbeat", m: transport.Message{Kind: transport.Heartbeat, Batch: 1}, want: transport.ErrMalformed, text: "Batch 1 on a heartbeat message"},
	} {
		err := c.m.Validate(l)
		want := c.want
		if c.layout {
			want = algorithms.ErrLayout
		}
		if !errors.Is(err, want) || !strings.Contains(fmt.Sprint(err), c.text) {
			t.Errorf("%s: Validate = %v; want an error wrapping %v containing %q", c.name, err, want, c.text)
		}
		b, err := c.m.AppendBinary([]byte{7})
		if c.layout {
			if err != nil {
				t.Errorf("%s: AppendBinary = %v; want nil (the layout is Validate's to check)", c.name, err)
			}
			continue
		}
		if !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.text) || !bytes.Equal(b, []byte{7}) {
			t.Errorf("%s: AppendBinary = %v, %v; want b unchanged and an error wrapping %v containing %q", c.name, b, err, c.want, c.text)
		}
	}
	var nf *algorithms.NonFiniteError
	m := transport.Message{Kind: transport.Release, Params: []float64{0, math.NaN(), 0}}
	if _, err := m.AppendBinary(nil); !errors.As(err, &nf) || nf.Index != 1 {
		t.Errorf("AppendBinary with a NaN param = %v; want an *algorithms.NonFiniteError at index 1", err)
	}
}

// enc builds encodings by hand, field by field.
type enc []byte

func (b enc) u(v uint64) enc    { return binary.AppendUvarint(b, v) }
func (b enc) s(v int64) enc     { return binary.AppendVarint(b, v) }
func (b enc) raw(x ...byte) enc { return append(b, x...) }
func (b enc) f(xs ...float64) enc {
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// head is a valid header of kind k up to and including Points: 11 bytes.
func head(k transport.Kind) enc {
	return enc{transport.FormatVersion, byte(k)}.s(-1).s(3).u(1).u(2).u(3).u(4).u(5).s(-1).u(6)
}

func TestUnmarshalMalformed(t *testing.T) {
	l := algorithms.Layout{Params: 3, Delta: 6, Block: 2}
	goodDelta := func() []byte {
		d := algorithms.NewDelta(l)
		d.Touch(1)
		d.Vec[2], d.Count = 0.5, 4
		b, err := filter.AppendDelta(nil, d, filter.Float64)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}()
	otherDelta, _ := filter.AppendDelta(nil, algorithms.NewDelta(algorithms.Layout{Delta: 5, Block: 2}), filter.Float64)
	overlong := enc{transport.FormatVersion, byte(transport.Ack)}.s(-1).s(3).raw(0x81, 0x00)
	cases := []struct {
		name string
		b    []byte
		want error
		text string
	}{
		{"empty", nil, transport.ErrMalformed, "truncated at byte 0 reading format version"},
		{"version 0", enc{0, 1}, transport.ErrMalformed, "format version 0 at byte 0, want 3"},
		{"version 1", enc{1, 1}, transport.ErrMalformed, "format version 1 at byte 0, want 3"},
		{"version 2", enc{2, 1}, transport.ErrMalformed, "format version 2 at byte 0, want 3"},
		{"version 4", enc{4, 1}, transport.ErrMalformed, "format version 4"},
		{"kind 0", enc{3, 0}, transport.ErrMalformed, "unknown kind 0 at byte 1"},
		{"kind 12", enc{3, 12}, transport.ErrMalformed, "unknown kind 12"},
		{"kind 255", enc{3, 255}, transport.ErrMalformed, "unknown kind 255"},
		{"From -2", enc{3, 3}.s(-2), transport.ErrMalformed, "From -2 at byte 2 is not a node ID"},
		{"To 2^31", enc{3, 3}.s(0).s(1 << 31), transport.ErrMalformed, "To 2147483648 at byte 3"},
		{"To min int64", enc{3, 3}.s(0).s(math.MinInt64), transport.ErrMalformed, "To -9223372036854775808"},
		{"overlong varint", overlong, transport.ErrMalformed, "Job at byte 4 is not minimally encoded"},
		{"varint overflow", enc{3, 3}.s(0).s(0).raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), transport.ErrMalformed, "Job at byte 4 overflows 64 bits"},
		{"incarnation 2^32", enc{3, 3}.s(0).s(0).u(0).u(1 << 32), transport.ErrMalformed, "Incarnation 4294967296 at byte 5 exceeds"},
		{"points 2^63", enc{3, 2}.s(0).s(-1).u(0).u(0).u(0).u(0).u(0).s(0).u(1 << 63), transport.ErrMalformed, "Points 9223372036854775808"},
		{"reason too long", head(transport.Stop).u(transport.MaxReason + 1), transport.ErrMalformed, "Reason length 4097 at byte 11 exceeds 4096"},
		{"reason absurd", head(transport.Stop).u(1 << 62), transport.ErrMalformed, "Reason length 4611686018427387904"},
		{"reason truncated", head(transport.Stop).u(10).raw('a', 'b'), transport.ErrMalformed, "truncated at byte 12 reading Reason: need 10 bytes, have 2"},
		{"reason not UTF-8", head(transport.Stop).u(2).raw(0xc3, 0x28).u(0).raw(0), transport.ErrMalformed, "Reason at byte 11 is not valid UTF-8"},
		{"params on ack", head(transport.Ack).u(0).u(3).f(1, 2, 3).raw(0), transport.ErrMalformed, "3 params at byte 12 on a ack message"},
		{"params short", head(transport.Release).u(0).u(2).f(1, 2).raw(0), algorithms.ErrLayout, "2 params at byte 12, want 3"},
		{"params absurd", head(transport.Release).u(0).u(1 << 40), transport.ErrMalformed, "Params length 1099511627776 at byte 12 exceeds"},
		{"params truncated", head(transport.Release).u(0).u(3).f(1, 2), transport.ErrMalformed, "truncated at byte 13 reading 3 params, have 16 bytes"},
		{"NaN param", head(transport.Release).u(0).u(3).f(1, math.NaN(), 3).raw(0), transport.ErrMalformed, "param 1 at byte 21 is NaN"},
		{"-Inf param", head(transport.Release).u(0).u(3).f(1, 2, math.Inf(-1)).raw(0), transport.ErrMalformed, "param 2 at byte 29 is -Inf"},
		{"no flags", head(transport.Commit).u(0).u(0), transport.ErrMalformed, "truncated at byte 13 reading flags"},
		{"flags 8", head(transport.Commit).u(0).u(0).raw(8), transport.ErrMalformed, "flags 0x8 at byte 13: unknown bits 0x8"},
		{"flags 0x81", head(transport.Commit).u(0).u(0).raw(0x81), transport.ErrMalformed, "unknown bits 0x80"},
		{"timer on commit", head(transport.Commit).u(0).u(0).raw(2).u(5), transport.ErrMalformed, "a timer at byte 13 on a commit message"},
		{"timer on ack", head(transport.Ack).u(0).u(0).raw(2).u(5), transport.ErrMalformed, "a timer at byte 13 on a ack message"},
		{"timer 0", head(transport.Release).u(0).u(0).raw(2).u(0), transport.ErrMalformed, "Timer 0 at byte 14"},
		{"timer overlong", head(transport.Release).u(0).u(0).raw(2).raw(0x85, 0x00), transport.ErrMalformed, "Timer at byte 14 is not minimally encoded"},
		{"timer 2^63", head(transport.Release).u(0).u(0).raw(2).u(1 << 63), transport.ErrMalformed, "Timer 9223372036854775808 at byte 14 exceeds"},
		{"timer truncated", head(transport.Release).u(0).u(0).raw(2), transport.ErrMalformed, "truncated at byte 14 reading Timer"},
		{"trailing after timer", head(transport.Release).u(0).u(0).raw(2).u(5).raw(7), transport.ErrMalformed, "1 trailing bytes at byte 15"},
		{"delta on release with timer", head(transport.Release).u(0).u(0).raw(3).u(5).raw(goodDelta...), transport.ErrMalformed, "a delta at byte 13 on a release message"},
		{"batch on ack", head(transport.Ack).u(0).u(0).raw(4).u(5), transport.ErrMalformed, "a batch number at byte 13 on a ack message"},
		{"batch on stop", head(transport.Stop).u(0).u(0).raw(4).u(5), transport.ErrMalformed, "a batch number at byte 13 on a stop message"},
		{"batch 0", head(transport.Batch).u(0).u(0).raw(4).u(0), transport.ErrMalformed, "Batch 0 at byte 14"},
		{"batch overlong", head(transport.Commit).u(0).u(0).raw(4).raw(0x85, 0x00), transport.ErrMalformed, "Batch at byte 14 is not minimally encoded"},
		{"batch truncated", head(transport.Release).u(0).u(0).raw(6).u(5), transport.ErrMalformed, "truncated at byte 15 reading Batch"},
		{"trailing after batch", head(transport.Join).u(0).u(0).raw(4).u(5).raw(7), transport.ErrMalformed, "1 trailing bytes at byte 15"},
		{"trailing after no delta", head(transport.Commit).u(0).u(0).raw(0, 9, 9), transport.ErrMalformed, "2 trailing bytes at byte 14"},
		{"delta on heartbeat", head(transport.Heartbeat).u(0).u(0).raw(1).raw(goodDelta...), transport.ErrMalformed, "a delta at byte 13 on a heartbeat message"},
		{"delta missing", head(transport.Commit).u(0).u(0).raw(1), transport.ErrMalformed, "delta at byte 14: filter: decode: truncated"},
		{"delta truncated", head(transport.Commit).u(0).u(0).raw(1).raw(goodDelta[:len(goodDelta)-1]...), transport.ErrMalformed, "delta at byte 14: filter: decode: truncated at byte 7"},
		{"delta trailing", head(transport.Commit).u(0).u(0).raw(1).raw(goodDelta...).raw(0), transport.ErrMalformed, "1 trailing bytes"},
		{"delta other layout", head(transport.Commit).u(0).u(0).raw(1).raw(otherDelta...), algorithms.ErrLayout, "delta dim 5 block 2, want dim 6 block 2"},
	}
	for _, c := range cases {
		m, err := transport.Unmarshal(c.b, l)
		if m != nil || !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.text) {
			t.Errorf("%s: Unmarshal(%x) = %v, %v; want an error wrapping %v containing %q", c.name, c.b, m, err, c.want, c.text)
		}
		if c.want == algorithms.ErrLayout && errors.Is(err, transport.ErrMalformed) {
			t.Errorf("%s: a layout mismatch also wraps ErrMalformed: %v", c.name, err)
		}
	}
	// The valid messages the cases were cut from decode.
	for _, b := range [][]byte{
		head(transport.Commit).u(0).u(0).raw(1).raw(goodDelta...),
		head(transport.Release).u(0).u(3).f(1, 2, 3).raw(0),
		head(transport.Stop).u(2).raw('o', 'k').u(0).raw(0),
		head(transport.Release).u(0).u(3).f(1, 2, 3).raw(2).u(1500000),
	} {
		if _, err := transport.Unmarshal(b, l); err != nil {
			t.Errorf("Unmarshal(%x) = %v", b, err)
		}
	}
	if _, err := transport.Unmarshal(head(transport.Ack).u(0).u(0).raw(0), algorithms.Layout{Params: -1}); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("Unmarshal with a negative layout = %v; want ErrLayout", err)
	}
}

// Every proper prefix of a valid encoding is malformed; flipping any byte
// never panics.
func TestUnmarshalTruncatedAndFlipped(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	truncated, flipped, refused := 0, 0, 0
	defer func() {
		t.Logf("%d truncated encodings refused; %d of %d with a flipped byte refused, the rest valid", truncated, refused, flipped)
	}()
	for _, tl := range testLayouts {
		for i := range 50 {
			m := transporttest.RandomMessage(rng, tl.l, transport.Kinds()[i%len(transport.Kinds())])
			b, err := m.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			for n := range len(b) {
				if _, err := transport.Unmarshal(b[:n], tl.l); !errors.Is(err, transport.ErrMalformed) {
					t.Fatalf("%s: Unmarshal of %d of %d bytes of %v = %v; want ErrMalformed", tl.name, n, len(b), m, err)
				}
				truncated++
			}
			for range 10 {
				c := bytes.Clone(b)
				j := rng.IntN(len(c))
				c[j] ^= byte(1 + rng.IntN(255))
				flipped++
				got, err := transport.Unmarshal(c, tl.l)
				if err != nil {
					if !errors.Is(err, transport.ErrMalformed) && !errors.Is(err, algorithms.ErrLayout) {
						t.Fatalf("Unmarshal of a damaged message = %v; want ErrMalformed or ErrLayout", err)
					}
					refused++
					continue
				}
				if err := got.Validate(tl.l); err != nil {
					t.Fatalf("Unmarshal accepted a message Validate refuses: %v", err)
				}
			}
		}
	}
}

// Lengths that claim more than the input holds are refused before any
// allocation of that size.
func TestUnmarshalNoHugeAllocation(t *testing.T) {
	big := algorithms.Layout{Params: 1 << 30, Delta: 1 << 4}
	b := head(transport.Release).u(0).u(1<<30).f(1, 2, 3)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, err := transport.Unmarshal(b, big); !errors.Is(err, transport.ErrMalformed) {
			t.Fatalf("Unmarshal = %v; want ErrMalformed", err)
		}
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Errorf("10 decodes of a %d-byte message claiming 2^30 params allocated %d bytes", len(b), d)
	}
}

func TestKindString(t *testing.T) {
	var names []string
	for _, k := range transport.Kinds() {
		names = append(names, k.String())
	}
	want := "release commit ack join leave interrupt stop heartbeat reject progress batch"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("kinds = %q; want %q", got, want)
	}
	if got := transport.Kind(0).String(); got != "Kind(0)" {
		t.Errorf("Kind(0).String() = %q", got)
	}
	if got := fmt.Sprint(transport.Coordinator, " ", transport.NodeID(4)); got != "coordinator worker 4" {
		t.Errorf("NodeID strings = %q", got)
	}
}

// Size and Validate do not allocate, so a simulator can call them per
// message.
func TestSizeValidateAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, tl := range testLayouts {
		for _, k := range []transport.Kind{transport.Release, transport.Commit, transport.Leave} {
			m := transporttest.RandomMessage(rng, tl.l, k)
			if a := testing.AllocsPerRun(20, func() { m.Size() }); a != 0 {
				t.Errorf("%s: Size(%v) allocates %v times", tl.name, m, a)
			}
			if a := testing.AllocsPerRun(20, func() { _ = m.Validate(tl.l) }); a != 0 {
				t.Errorf("%s: Validate(%v) allocates %v times", tl.name, m, a)
			}
		}
	}
}
