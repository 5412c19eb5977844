package exchange

import (
	"errors"
	"fmt"

	"github.com/syncmodels/syncmodels/transport"
)

// UpdateID identifies an update: the header every write of a Peer
// carries (RELIABILITY.md's (job, worker, incarnation, seq)). A writer
// numbers its updates with Seq, per incarnation; an update retried after
// an error keeps its ID, so a reader that already applied it recognises
// it.
type UpdateID struct {
	Job         uint64
	Peer        transport.NodeID
	Incarnation uint32
	Seq         uint64
}

// IDOf returns the ID of message m.
func IDOf(m *transport.Message) UpdateID {
	return UpdateID{Job: m.Job, Peer: m.From, Incarnation: m.Incarnation, Seq: m.Seq}
}

func (id UpdateID) String() string {
	return fmt.Sprintf("job %d %v inc %d seq %d", id.Job, id.Peer, id.Incarnation, id.Seq)
}

// newer reports whether id comes after o from the same peer: a later
// incarnation, or a later Seq in the same incarnation.
func (id UpdateID) newer(o UpdateID) bool {
	if id.Incarnation != o.Incarnation {
		return id.Incarnation > o.Incarnation
	}
	return id.Seq > o.Seq
}

// Errors of Dedup.Admit.
var (
	// ErrDuplicate reports an update already admitted.
	ErrDuplicate = errors.New("exchange: duplicate update")
	// ErrStale reports an update older than one already admitted from
	// its peer: an earlier incarnation, or an earlier Seq (a store
	// restored from an old snapshot, a note read out of order).
	ErrStale = errors.New("exchange: stale update")
)

// Dedup is a reader's memory of the newest update it admitted from each
// peer of one channel (a peer's slot, or one topic): it admits an update
// only if it is newer, so no update is applied twice, whatever the store
// replays — a latest value read again, a note appended twice by a retry,
// updates restored after a loss. Use one Dedup per channel: a peer's
// posts and its slot are numbered together, and a Seq seen on one is not
// a reason to refuse a smaller one on the other. Peer.Fresh and Peer.Next
// keep their own. The zero Dedup is ready to use; it is not safe for
// concurrent use.
type Dedup struct {
	last       map[transport.NodeID]UpdateID
	duplicates int
	stale      int
}

// Admit records id and returns nil if it is newer than every update
// admitted from its peer (the caller applies it); otherwise it returns an
// error wrapping ErrDuplicate or ErrStale, naming both updates, and
// changes nothing but the counts.
func (d *Dedup) Admit(id UpdateID) error {
	last, ok := d.last[id.Peer]
	switch {
	case !ok || id.newer(last):
		if d.last == nil {
			d.last = map[transport.NodeID]UpdateID{}
		}
		d.last[id.Peer] = id
		return nil
	case id == last:
		d.duplicates++
		return fmt.Errorf("exchange: update %v already admitted: %w", id, ErrDuplicate)
	default:
		d.stale++
		return fmt.Errorf("exchange: update %v is older than %v, already admitted: %w", id, last, ErrStale)
	}
}

// New reports whether Admit would admit id, without recording it.
func (d *Dedup) New(id UpdateID) bool {
	last, ok := d.last[id.Peer]
	return !ok || id.newer(last)
}

// Last returns the newest update admitted from peer.
func (d *Dedup) Last(peer transport.NodeID) (UpdateID, bool) {
	id, ok := d.last[peer]
	return id, ok
}

// Refused returns how many updates Admit refused as duplicates and as
// stale.
func (d *Dedup) Refused() (duplicates, stale int) { return d.duplicates, d.stale }
