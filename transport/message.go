package transport

import (
	"github.com/syncmodels/syncmodels/internal/wire"

	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/filter"
)

// Kind says what a message asks for or reports.
type Kind uint8

// Message kinds. The zero Kind is invalid, so a message whose kind was
// forgotten is refused.
const (
	// Release (coordinator → worker): compute clock Clock on the
	// parameters of Version (attached in Params, or the worker's current
	// ones when Params is empty), processing Budget points, then commit —
	// or, with a Timer, commit once that long has passed since the
	// release arrived.
	Release Kind = iota + 1
	// Commit (worker → coordinator): the delta computed on Version over
	// Points points, as clock Clock; Seq numbers the worker's commits.
	Commit
	// Ack acknowledges the message with sequence number Seq.
	Ack
	// Join (worker → coordinator): the worker, as incarnation
	// Incarnation, asks to take part.
	Join
	// Leave (worker → coordinator): the worker leaves; it may hand over
	// the updates it still holds (a filter's Flush) in Delta.
	Leave
	// Interrupt (coordinator → worker): commit what has been processed so
	// far now (FSP's flexible barrier signal).
	Interrupt
	// Stop (coordinator → worker): the run ends; Reason says why.
	Stop
	// Heartbeat renews the sender's lease.
	Heartbeat
	// Reject refuses the message with sequence number Seq (stale
	// incarnation, stale step, unknown job); Reason says why.
	Reject
	// Progress (worker → coordinator): Points points processed since the
	// last Release (the "point done" signal of time-triggered barriers).
	Progress
	// Batch (worker → coordinator) announces that the worker's streamed
	// batch number Batch is complete (DOLL's batch indicator); (coordinator
	// → worker) acknowledges, cumulatively, that Batch of the worker's
	// batches have been announced (batches 0 … Batch−1).
	Batch

	numKinds = iota + 1 // length of a ByKind array
)

var kindNames = [numKinds]string{"?", "release", "commit", "ack", "join", "leave", "interrupt", "stop", "heartbeat", "reject", "progress", "batch"}

// Kinds returns every valid kind in increasing order.
func Kinds() []Kind {
	k := make([]Kind, 0, numKinds-1)
	for i := Release; i < numKinds; i++ {
		k = append(k, i)
	}
	return k
}

// Valid reports whether k is one of the defined kinds.
func (k Kind) Valid() bool { return k >= Release && k < numKinds }

func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// CarriesParams reports whether messages of kind k may carry Params
// (Release only).
func (k Kind) CarriesParams() bool { return k == Release }

// CarriesBatch reports whether messages of kind k may carry a Batch
// (Release, Commit, Batch and Join).
func (k Kind) CarriesBatch() bool {
	return k == Release || k == Commit || k == Batch || k == Join
}

// CarriesDelta reports whether messages of kind k may carry a Delta
// (Commit, and Leave for the updates a leaving worker still holds).
func (k Kind) CarriesDelta() bool { return k == Commit || k == Leave }

// FormatVersion is the first byte of every encoded message. Version 2
// added Timer (the flags byte's bit 1); version 3 added the Batch kind
// and the Batch field (bit 2). A message without a timer or a batch
// number encodes as in version 1 but for its first byte.
const FormatVersion = 3

// MaxReason is the largest Reason, in bytes.
const MaxReason = 4096

// Message is one message between the coordinator and a worker. The header
// fields (Job, Incarnation, Seq, and Version/Clock for the step) identify a
// mutating message so that its receiver can deduplicate it and refuse it
// when stale; the payload fields are for the kinds listed.
type Message struct {
	Kind Kind
	// From and To are the sending and receiving nodes. Endpoint.Send sets
	// From; To addresses the message.
	From, To NodeID

	// Job identifies the training job.
	Job uint64
	// Incarnation numbers the worker's lives: a worker that rejoins after
	// a crash or preemption comes back as Incarnation + 1, and messages of
	// older incarnations are refused.
	Incarnation uint32
	// Seq is the sender's sequence number (per sender and incarnation);
	// for Ack and Reject, the Seq of the message answered.
	Seq uint64

	// Version is the parameter version: of Params for Release, the one the
	// delta was computed on for Commit.
	Version uint64
	// Clock is the worker's clock (0-based iteration): the one to compute
	// for Release, the one committed for Commit.
	Clock uint64
	// Budget (Release) is the number of points to process before
	// committing; 0 means one full pass. Negative values are reserved (for
	// example −1, "until the end of the pass"): they travel unchanged and
	// their meaning is the protocol's.
	Budget int64
	// Points (Commit, Progress) is the number of points processed, ≥ 0;
	// (Release, ISP runs) the number of points applied so far, which the
	// workers' local optimizers use as the global epoch count.
	Points int64
	// Timer (Release only) is the worker's local timer of semi-centralized
	// FSP (FSP paper §5.2): it commits once it has computed this long
	// since the release arrived — after the point in progress, as if
	// interrupted — or earlier if interrupted or its Budget is done. 0
	// means no local timer; never negative.
	Timer time.Duration
	// Batch numbers streamed batches (K-grouping, DOLL §III-A): for a
	// Release, the first of the worker's batches to compute (Budget
	// covers Budget/b of them, b points each); for a Commit, the first
	// batch the delta was computed from (the release's, echoed); for a
	// Batch from a worker, the batch announced; for a Batch or a Join
	// from the coordinator, the number of the worker's batches announced
	// so far (a rejoining worker resumes its stream there). 0 on the
	// other kinds.
	Batch uint64

	// Params (Release only) is the full parameter vector: empty, or
	// exactly the layout's Params long. Values are finite.
	Params []float64
	// Delta (Commit and Leave only) is the additive update, of the
	// layout's Delta length and Block width, with finite live entries and
	// Count ≥ 0; nil for none. Entries of live blocks that are zero are not
	// sent, so the receiver's delta has exactly the blocks with a nonzero
	// entry live.
	Delta *algorithms.Delta

	// Reason (any kind; used by Reject, Stop, Leave) is a human-readable
	// cause: valid UTF-8, at most MaxReason bytes.
	Reason string
}

func (m *Message) String() string {
	s := fmt.Sprintf("%v %v→%v job=%d inc=%d seq=%d v=%d clock=%d", m.Kind, m.From, m.To, m.Job, m.Incarnation, m.Seq, m.Version, m.Clock)
	if m.Budget != 0 {
		s += fmt.Sprintf(" budget=%d", m.Budget)
	}
	if m.Points != 0 {
		s += fmt.Sprintf(" points=%d", m.Points)
	}
	if m.Timer != 0 {
		s += fmt.Sprintf(" timer=%v", m.Timer)
	}
	if m.Batch != 0 {
		s += fmt.Sprintf(" batch=%d", m.Batch)
	}
	if len(m.Params) > 0 {
		s += fmt.Sprintf(" params=%d", len(m.Params))
	}
	if m.Delta != nil {
		s += fmt.Sprintf(" delta=%d/count=%d", m.Delta.Len(), m.Delta.Count)
	}
	if m.Reason != "" {
		s += fmt.Sprintf(" reason=%q", m.Reason)
	}
	return s
}

// The flags byte after the params: what follows it.
const (
	hasDelta = 1 << 0 // a delta fills the rest of the message
	hasTimer = 1 << 1 // a uvarint Timer follows (before the delta)
	hasBatch = 1 << 2 // a uvarint Batch follows (after the timer)
	allFlags = hasDelta | hasTimer | hasBatch
)

// AppendBinary appends the encoding of m to b and returns the extended
// buffer; it implements encoding.BinaryAppender. The format, version 3:
//
//	byte     FormatVersion (3)
//	byte     Kind (Release = 1 … Progress = 10, Batch = 11)
//	varint   From, then To: zig-zag signed varints as
//	         encoding/binary.AppendVarint writes them, each in
//	         [Coordinator (−1), MaxNode]
//	uvarint  Job
//	uvarint  Incarnation (≤ 2^32−1)
//	uvarint  Seq
//	uvarint  Version
//	uvarint  Clock
//	varint   Budget (zig-zag)
//	uvarint  Points (so Points ≥ 0)
//	uvarint  r, the length of Reason (≤ MaxReason), then r bytes of
//	         valid UTF-8
//	uvarint  p, the length of Params, then p × 8 bytes: little-endian
//	         IEEE-754 float64, finite; p is 0 unless Kind is Release
//	byte     flags: bit 0 (1) a delta follows, bit 1 (2) a timer
//	         follows, bit 2 (4) a batch number follows; the other bits
//	         are 0. A bit is set exactly when the field is present (a
//	         nil Delta, a zero Timer, a zero Batch: clear).
//	uvarint  Timer in nanoseconds, > 0, if bit 1 is set; only Release
//	         carries one
//	uvarint  Batch, > 0, if bit 2 is set; only Release, Commit, Batch
//	         and Join carry one
//	...      the delta, if bit 0 is set: it fills the rest of the
//	         message, in filter.AppendDelta's format with filter.Float64
//	         values. Only Commit and Leave carry one.
//
// Varints are minimally encoded (as encoding/binary writes them; Unmarshal
// refuses overlong ones), so a message without a delta has exactly one
// encoding. A message of n params and no reason, timer, batch or delta
// takes 14 + 8n bytes plus one byte for every 7 bits its header integers
// need beyond the first 7. The timer and the batch number sit behind
// flags, not in the header, so that messages without them (all but
// semi-centralized FSP's releases and K-grouping's messages) cost what
// they cost in version 1.
//
// AppendBinary checks every rule of the format that does not depend on the
// layout (see Validate for the whole set); a message that breaks one is an
// error wrapping ErrMalformed (a NaN or ±Inf value also wraps an
// *algorithms.NonFiniteError), and b is returned unchanged.
func (m *Message) AppendBinary(b []byte) ([]byte, error) {
	start := len(b)
	b, err := m.appendHead(b)
	if err != nil || m.Delta == nil {
		return b, err
	}
	b, err = filter.AppendDelta(b, m.Delta, filter.Float64)
	if err != nil {
		return b[:start], m.errorf("delta: %w", wrapMalformed(err))
	}
	return b, nil
}

// appendHead appends everything AppendBinary writes before the delta, or
// returns b unchanged and the error of a rule the header breaks.
func (m *Message) appendHead(b []byte) ([]byte, error) {
	if err := m.checkHeader(); err != nil {
		return b, err
	}
	for i, x := range m.Params {
		if !finite(x) {
			return b, m.errorf("%w: %w", &algorithms.NonFiniteError{What: "params", Index: i, Value: x}, ErrMalformed)
		}
	}
	b = slices.Grow(b, m.headerSize()+8*len(m.Params)+1)
	b = append(b, FormatVersion, byte(m.Kind))
	b = binary.AppendVarint(b, int64(m.From))
	b = binary.AppendVarint(b, int64(m.To))
	b = binary.AppendUvarint(b, m.Job)
	b = binary.AppendUvarint(b, uint64(m.Incarnation))
	b = binary.AppendUvarint(b, m.Seq)
	b = binary.AppendUvarint(b, m.Version)
	b = binary.AppendUvarint(b, m.Clock)
	b = binary.AppendVarint(b, m.Budget)
	b = binary.AppendUvarint(b, uint64(m.Points))
	b = binary.AppendUvarint(b, uint64(len(m.Reason)))
	b = append(b, m.Reason...)
	b = binary.AppendUvarint(b, uint64(len(m.Params)))
	for _, x := range m.Params {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	var flags byte
	if m.Delta != nil {
		flags |= hasDelta
	}
	if m.Timer != 0 {
		flags |= hasTimer
	}
	if m.Batch != 0 {
		flags |= hasBatch
	}
	b = append(b, flags)
	if m.Timer != 0 {
		b = binary.AppendUvarint(b, uint64(m.Timer))
	}
	if m.Batch != 0 {
		b = binary.AppendUvarint(b, m.Batch)
	}
	return b, nil
}

// checkHeader checks the layout-independent rules on everything but the
// values of Params and Delta.
func (m *Message) checkHeader() error {
	switch {
	case !m.Kind.Valid():
		return m.errorf("unknown kind %d: %w", uint8(m.Kind), ErrMalformed)
	case !m.From.Valid():
		return m.errorf("From %d is not a node ID in [-1, %d]: %w", int(m.From), int(MaxNode), ErrMalformed)
	case !m.To.Valid():
		return m.errorf("To %d is not a node ID in [-1, %d]: %w", int(m.To), int(MaxNode), ErrMalformed)
	case m.Points < 0:
		return m.errorf("Points %d is negative: %w", m.Points, ErrMalformed)
	case len(m.Reason) > MaxReason:
		return m.errorf("Reason of %d bytes exceeds %d: %w", len(m.Reason), MaxReason, ErrMalformed)
	case !utf8.ValidString(m.Reason):
		return m.errorf("Reason %q is not valid UTF-8: %w", m.Reason, ErrMalformed)
	case len(m.Params) > 0 && !m.Kind.CarriesParams():
		return m.errorf("%d params on a %v message (only release carries params): %w", len(m.Params), m.Kind, ErrMalformed)
	case m.Delta != nil && !m.Kind.CarriesDelta():
		return m.errorf("a delta on a %v message (only commit and leave carry one): %w", m.Kind, ErrMalformed)
	case m.Delta != nil && m.Delta.Count < 0:
		return m.errorf("delta count %d is negative: %w", m.Delta.Count, ErrMalformed)
	case m.Timer < 0:
		return m.errorf("Timer %v is negative: %w", m.Timer, ErrMalformed)
	case m.Timer != 0 && m.Kind != Release:
		return m.errorf("Timer %v on a %v message (only release carries a timer): %w", m.Timer, m.Kind, ErrMalformed)
	case m.Batch != 0 && !m.Kind.CarriesBatch():
		return m.errorf("Batch %d on a %v message (only release, commit, batch and join carry one): %w", m.Batch, m.Kind, ErrMalformed)
	}
	return nil
}

// errorf returns an error prefixed with the message's kind and
// destination.
func (m *Message) errorf(format string, args ...any) error {
	return fmt.Errorf("transport: %v message to %v: "+format, append([]any{m.Kind, m.To}, args...)...)
}

// Validate reports whether m is a valid message for layout l, that is,
// whether Unmarshal(m.AppendBinary(nil), l) would succeed: AppendBinary's
// rules plus Params of length 0 or l.Params and a Delta of l's Delta length
// and Block width (errors wrapping algorithms.ErrLayout). It runs in time
// proportional to Params and the delta's live entries and does not
// allocate on success.
func (m *Message) Validate(l algorithms.Layout) error {
	if err := m.checkShape(l); err != nil {
		return err
	}
	if err := m.checkHeader(); err != nil {
		return err
	}
	for i, x := range m.Params {
		if !finite(x) {
			return m.errorf("%w: %w", &algorithms.NonFiniteError{What: "params", Index: i, Value: x}, ErrMalformed)
		}
	}
	if m.Delta != nil {
		for lo, hi := range spans(m.Delta) {
			for i, x := range m.Delta.Vec[lo:hi] {
				if !finite(x) {
					return m.errorf("delta: %w: %w", &algorithms.NonFiniteError{What: "delta", Index: lo + i, Value: x}, ErrMalformed)
				}
			}
		}
	}
	return nil
}

// checkShape checks the lengths of Params and Delta against l.
func (m *Message) checkShape(l algorithms.Layout) error {
	if err := checkLayout(l); err != nil {
		return err
	}
	if n := len(m.Params); n != 0 && n != l.Params {
		return m.errorf("%d params, want %d (or none): %w", n, l.Params, algorithms.ErrLayout)
	}
	if d := m.Delta; d != nil && (d.Len() != l.Delta || d.BlockWidth() != l.Block) {
		return m.errorf("delta len %d block %d, want len %d block %d: %w",
			d.Len(), d.BlockWidth(), l.Delta, l.Block, algorithms.ErrLayout)
	}
	return nil
}

// checkLayout validates a layout.
func checkLayout(l algorithms.Layout) error {
	if l.Params < 0 || l.Delta < 0 || l.Block < 0 || l.Params > math.MaxInt32 || l.Delta > math.MaxInt32 {
		return fmt.Errorf("transport: layout %+v: lengths must be in [0, 2^31-1]: %w", l, algorithms.ErrLayout)
	}
	return nil
}

// Size returns the length of m's encoding, len(m.AppendBinary(nil)),
// without encoding: in constant time plus time proportional to the delta's
// live entries (about a third of encoding's), with no allocation. For a message that AppendBinary refuses
// the result is meaningless. Like AppendBinary (and Delta.Range), Size may
// sort the delta's list of live blocks.
func (m *Message) Size() int {
	n := m.headerSize() + 8*len(m.Params) + 1 + m.timerSize() + m.batchSize()
	if m.Delta != nil {
		n += deltaSize(m.Delta)
	}
	return n
}

// MaxSize returns an upper bound of Size in constant time: the size with
// the delta, if any, in its dense form. A transport compares it with its
// limit and computes Size only when the bound exceeds the limit.
func (m *Message) MaxSize() int {
	n := m.headerSize() + 8*len(m.Params) + 1 + m.timerSize() + m.batchSize()
	if d := m.Delta; d != nil {
		n += 2 + uvarintLen(uint64(d.Len())) + uvarintLen(uint64(d.BlockWidth())) + uvarintLen(uint64(d.Count)) + 8*d.Len()
	}
	return n
}

// headerSize is the length of everything before the params' values.
func (m *Message) headerSize() int {
	return 2 + varintLen(int64(m.From)) + varintLen(int64(m.To)) +
		uvarintLen(m.Job) + uvarintLen(uint64(m.Incarnation)) + uvarintLen(m.Seq) +
		uvarintLen(m.Version) + uvarintLen(m.Clock) + varintLen(m.Budget) + uvarintLen(uint64(m.Points)) +
		uvarintLen(uint64(len(m.Reason))) + len(m.Reason) + uvarintLen(uint64(len(m.Params)))
}

// timerSize is the length of the Timer field: none for a zero timer.
func (m *Message) timerSize() int {
	if m.Timer == 0 {
		return 0
	}
	return uvarintLen(uint64(m.Timer))
}

// batchSize is the length of the Batch field: none for batch 0.
func (m *Message) batchSize() int {
	if m.Batch == 0 {
		return 0
	}
	return uvarintLen(m.Batch)
}

// deltaSize is the length of filter.AppendDelta(nil, d, filter.Float64):
// the same choice between the explicit (index, value) form and the dense
// form, the shorter one, explicit on a tie. TestSize holds the two equal.
func deltaSize(d *algorithms.Delta) int {
	dim := d.Len()
	dense := 8 * dim
	// Count the nonzero live entries and their index bytes, stopping as
	// soon as the explicit form is longer than the dense one: it only
	// grows.
	n, idx, prev := 0, 0, -1
	explicit := true
	for lo, hi := range spans(d) {
		for i, x := range d.Vec[lo:hi] {
			if x != 0 {
				gap := uint64(lo + i - prev - 1)
				idx++
				if gap >= 0x80 {
					idx += uvarintLen(gap) - 1
				}
				prev = lo + i
				n++
			}
		}
		if idx+8*n > dense {
			explicit = false
			break
		}
	}
	body := dense
	if e := uvarintLen(uint64(n)) + idx + 8*n; explicit && e <= dense {
		body = e
	}
	return 2 + uvarintLen(uint64(dim)) + uvarintLen(uint64(d.BlockWidth())) + uvarintLen(uint64(d.Count)) + body
}

// spans yields the index range of every live block of d in increasing
// order, one range [0, Len) for a dense delta.
func spans(d *algorithms.Delta) iter.Seq2[int, int] {
	return func(yield func(lo, hi int) bool) {
		if !d.Sparse() {
			yield(0, d.Len())
			return
		}
		w := d.BlockWidth()
		for _, b := range d.Blocks() {
			lo := int(b) * w
			if !yield(lo, min(lo+w, d.Len())) {
				return
			}
		}
	}
}

// uvarintLen is the length of v as encoding/binary.AppendUvarint writes it:
// 7 bits a byte.
func uvarintLen(v uint64) int { return wire.UvarintLen(v) }

// varintLen is the length of a zig-zag signed varint.
func varintLen(v int64) int { return uvarintLen(uint64(v<<1) ^ uint64(v>>63)) }

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return v-v == 0 }
