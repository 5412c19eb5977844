package slsml

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"strconv"
)

// The values the pipeline stores. Each is a 4-byte magic, a fixed header,
// a vector of float64 (little endian) and a CRC-32C of everything before
// it; a reader checks all of it against the key it read and refuses
// anything else with ErrMalformed. The exchange's transport.Message
// format is not used because partitions and slices have other lengths
// than θ (a Peer validates every update against one layout).
//
//	model/<t>          "SLM1" t u32 · from u64 · n u32 · θ_t
//	grad/<t>/<w>/<r>   "SLG1" t u32 · w u32 · r u32 · count i64 · n u32 · slice r of w's gradient
//	slice/<t>/<r>      "SLS1" t u32 · r u32 · from u64 · cut u64 · count i64 · digest u64 · n u32 · slice r of θ_{t+1}
//
// and the notes of topic "done", one per finished worker: t u32 · w u32.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	magicModel = "SLM1"
	magicGrad  = "SLG1"
	magicSlice = "SLS1"
)

// Keys and names.
func modelKey(t int) string { return "model/" + strconv.Itoa(t) }
func gradKey(c Contribution, r int) string {
	return "grad/" + strconv.Itoa(c.Iter) + "/" + strconv.Itoa(c.Worker) + "/" + strconv.Itoa(r)
}
func sliceKey(t, r int) string { return "slice/" + strconv.Itoa(t) + "/" + strconv.Itoa(r) }
func doneSet(t int) string     { return "done/" + strconv.Itoa(t) }
func reducedSet(t int) string  { return "reduced/" + strconv.Itoa(t) }

const (
	doneTopic   = "done"   // the WorkDone notifications, one per worker
	workTopic   = "work"   // the Work notifications, one per worker invocation
	reduceTopic = "reduce" // the Reduce notifications, one per reducer invocation
)

// enc builds a value.
type enc struct{ b []byte }

func newEnc(magic string, floats int) *enc {
	e := &enc{b: make([]byte, 0, 4+48+8*floats+4)}
	e.b = append(e.b, magic...)
	return e
}
func (e *enc) u32(v int)    { e.b = binary.LittleEndian.AppendUint32(e.b, uint32(v)) }
func (e *enc) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) vec(v []float64) {
	e.u32(len(v))
	for _, x := range v {
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x))
	}
}
func (e *enc) done() []byte {
	return binary.LittleEndian.AppendUint32(e.b, crc32.Checksum(e.b, castagnoli))
}

// dec reads a value; the first error sticks.
type dec struct {
	key string
	b   []byte
	err error
}

func newDec(key, magic string, b []byte) *dec {
	d := &dec{key: key}
	switch {
	case len(b) < 8:
		d.fail("%d bytes, too short", len(b))
	case string(b[:4]) != magic:
		d.fail("starts with %q, want %q", b[:4], magic)
	default:
		body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
		if got := crc32.Checksum(body, castagnoli); got != sum {
			d.fail("checksum %#08x, stored %#08x", got, sum)
		}
		d.b = body[4:]
	}
	return d
}

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("slsml: value of %q: "+format+": %w", append([]any{d.key}, append(args, ErrMalformed)...)...)
	}
}

func (d *dec) u32() int {
	if d.err != nil || len(d.b) < 4 {
		d.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return int(v)
}

func (d *dec) u64() uint64 {
	if d.err != nil || len(d.b) < 8 {
		d.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// vec reads a vector of want floats, all finite.
func (d *dec) vec(want int) []float64 {
	n := d.u32()
	if d.err != nil {
		return nil
	}
	if n != want || len(d.b) != 8*n {
		d.fail("holds %d floats in %d bytes, want %d", n, len(d.b), want)
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(d.b[8*i:]))
		if math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
			d.fail("entry %d is %v", i, v[i])
			return nil
		}
	}
	d.b = nil
	return v
}

// expect checks a header field.
func (d *dec) expect(what string, got, want int) {
	if d.err == nil && got != want {
		d.fail("%s %d, want %d", what, got, want)
	}
}

// model is a published model: θ_t and where the reducers of iteration t
// start reading the done topic.
type model struct {
	iter  int
	from  uint64
	theta []float64
}

func encodeModel(m model) []byte {
	e := newEnc(magicModel, len(m.theta))
	e.u32(m.iter)
	e.u64(m.from)
	e.vec(m.theta)
	return e.done()
}

func decodeModel(key string, b []byte, iter, params int) (model, error) {
	d := newDec(key, magicModel, b)
	m := model{iter: d.u32(), from: d.u64()}
	d.expect("iteration", m.iter, iter)
	m.theta = d.vec(params)
	return m, d.err
}

// partition is slice r of a worker's gradient.
type partition struct {
	c     Contribution
	r     int
	count int
	vec   []float64
}

func encodePartition(p partition) []byte {
	e := newEnc(magicGrad, len(p.vec))
	e.u32(p.c.Iter)
	e.u32(p.c.Worker)
	e.u32(p.r)
	e.u64(uint64(p.count))
	e.vec(p.vec)
	return e.done()
}

func decodePartition(key string, b []byte, c Contribution, r, n int) (partition, error) {
	d := newDec(key, magicGrad, b)
	p := partition{c: Contribution{Iter: d.u32(), Worker: d.u32()}, r: d.u32()}
	p.count = int(int64(d.u64()))
	d.expect("iteration", p.c.Iter, c.Iter)
	d.expect("worker", p.c.Worker, c.Worker)
	d.expect("reducer", p.r, r)
	if d.err == nil && p.count < 1 {
		d.fail("count %d, want ≥ 1", p.count)
	}
	p.vec = d.vec(n)
	return p, d.err
}

// slice is reducer r's slice of θ_{t+1}, with the window of the done
// topic it read and a digest of the set it applied.
type slice struct {
	iter, r   int
	from, cut uint64
	count     int
	digest    uint64
	theta     []float64
}

func encodeSlice(s slice) []byte {
	e := newEnc(magicSlice, len(s.theta))
	e.u32(s.iter)
	e.u32(s.r)
	e.u64(s.from)
	e.u64(s.cut)
	e.u64(uint64(s.count))
	e.u64(s.digest)
	e.vec(s.theta)
	return e.done()
}

func decodeSlice(key string, b []byte, iter, r, n int) (slice, error) {
	d := newDec(key, magicSlice, b)
	s := slice{iter: d.u32(), r: d.u32(), from: d.u64(), cut: d.u64()}
	s.count = int(int64(d.u64()))
	s.digest = d.u64()
	d.expect("iteration", s.iter, iter)
	d.expect("reducer", s.r, r)
	s.theta = d.vec(n)
	return s, d.err
}

// encodeNote and decodeNote are the done topic's notes.
func encodeNote(c Contribution) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(c.Iter))
	return binary.LittleEndian.AppendUint32(b, uint32(c.Worker))
}

func decodeNote(seq uint64, b []byte, workers int) (Contribution, error) {
	if len(b) != 8 {
		return Contribution{}, fmt.Errorf("slsml: note %d of %q is %d bytes, want 8: %w", seq, doneTopic, len(b), ErrMalformed)
	}
	c := Contribution{Iter: int(binary.LittleEndian.Uint32(b)), Worker: int(binary.LittleEndian.Uint32(b[4:]))}
	if c.Worker >= workers {
		return Contribution{}, fmt.Errorf("slsml: note %d of %q names worker %d of %d: %w", seq, doneTopic, c.Worker, workers, ErrMalformed)
	}
	return c, nil
}

// digest is an order-independent digest of a set of contributions (the
// set is sorted anyway): FNV-1a over its members in order.
func digest(set []Contribution) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range set {
		for _, v := range [2]int{c.Iter, c.Worker} {
			for i := range 4 {
				h ^= uint64(byte(v >> (8 * i)))
				h *= 1099511628211
			}
		}
	}
	return h
}
