package storenet

import (
	"fmt"
	"math"
	"strings"

	"github.com/syncmodels/syncmodels/transport"
)

// The ledger accounts for every message an endpoint of a Network sends to
// a node opened on the same Network (a local inbox): each is, at every
// moment, received, dropped or in flight, as transport.NodeStats says. A
// message in flight is a note of the recipient's inbox, numbered in an
// epoch, that the recipient has not handled yet. The recipient handles
// notes in order, so its cursor (the last note handled) splits the
// inbox: the notes up to it were delivered, skipped as markers, or
// dropped (trimmed, unreadable, skipped at a reopen: the gaps); the ones
// after it are in flight. A store that loses its data ends the epoch:
// every note after the cursor is dropped, the gap after the cursor is
// open-ended, and the new epoch's notes are numbered from 1 in a book of
// their own.
//
// A sender learns its note's number only when Append returns, which may
// be after the recipient handled the note; so a sender that records a
// note at or below the cursor finds it delivered (nothing to do) or in a
// gap (dropped now). Messages to nodes that were never opened on this
// Network (a worker in another process) are not in the ledger: this
// Network cannot see them arrive.

// entry is a message in flight: its sender, kind and size.
type entry struct {
	from transport.NodeID
	kind transport.Kind
	size int
}

// gap is an inclusive range of notes dropped; hi = math.MaxUint64 for an
// open-ended one (the epoch ended).
type gap struct{ lo, hi uint64 }

// book is one epoch of one inbox.
type book struct {
	epoch   string
	cursor  uint64
	pending map[uint64]entry
	gaps    []gap
}

// maxBooks is how many epochs an inbox remembers: older ones ended long
// ago (their books have open-ended gaps and nothing pending).
const maxBooks = 4

// maxGaps bounds a book's gaps; past it, the oldest two merge (notes
// between them that were delivered would then count as dropped if a
// sender recorded them later still: never in practice).
const maxGaps = 64

// inbox is the ledger of one local node.
type inbox struct {
	books  []*book // oldest first
	closed bool    // no endpoint open: every note recorded is dropped
}

// book returns the book of epoch, creating it.
func (ib *inbox) book(n *Network, epoch string) *book {
	for _, b := range ib.books {
		if b.epoch == epoch {
			return b
		}
	}
	b := &book{epoch: epoch, pending: map[uint64]entry{}}
	if len(ib.books) == maxBooks {
		old := ib.books[0]
		for _, e := range old.pending {
			n.nodes[e.from].count.add(dropped, e.kind, 1, e.size)
		}
		ib.books = ib.books[1:]
	}
	ib.books = append(ib.books, b)
	return b
}

// inGap reports whether note seq was dropped.
func (b *book) inGap(seq uint64) bool {
	for _, g := range b.gaps {
		if seq >= g.lo && seq <= g.hi {
			return true
		}
	}
	return false
}

// addGap records notes lo…hi as dropped, merging with the last gap when
// they touch.
func (b *book) addGap(lo, hi uint64) {
	if lo > hi {
		return
	}
	if k := len(b.gaps); k > 0 && b.gaps[k-1].hi != math.MaxUint64 && b.gaps[k-1].hi+1 >= lo && b.gaps[k-1].lo <= lo {
		b.gaps[k-1].hi = max(b.gaps[k-1].hi, hi)
		return
	}
	if len(b.gaps) == maxGaps {
		b.gaps[1].lo = b.gaps[0].lo
		b.gaps = b.gaps[1:]
	}
	b.gaps = append(b.gaps, gap{lo, hi})
}

// recordSent records note seq of epoch in to's inbox, sent by from. The
// caller has counted it as sent. n.mu is held.
func (n *Network) recordSent(to transport.NodeID, epoch string, seq uint64, e entry) {
	nd := n.nodes[to]
	if nd == nil || nd.inbox == nil {
		return // not a local node
	}
	ib := nd.inbox
	b := ib.book(n, epoch)
	switch {
	case ib.closed && !nd.opening:
		// Appended before an Open (if any) appends its marker.
		n.nodes[e.from].count.add(dropped, e.kind, 1, e.size)
	case b.inGap(seq):
		n.nodes[e.from].count.add(dropped, e.kind, 1, e.size)
	case seq <= b.cursor:
		// Delivered before the sender recorded it.
	default:
		b.pending[seq] = e
	}
}

// handled records that node id handled note seq of epoch without
// dropping it (delivered, or a marker). n.mu is held.
func (n *Network) handled(id transport.NodeID, epoch string, seq uint64) {
	b := n.nodes[id].inbox.book(n, epoch)
	delete(b.pending, seq)
	b.cursor = max(b.cursor, seq)
}

// dropRange records that node id dropped notes lo…hi of epoch (hi =
// math.MaxUint64: every note after lo−1, the epoch ended) and returns
// the messages of this Network's senders among them, which it counts as
// dropped. n.mu is held.
func (n *Network) dropRange(id transport.NodeID, epoch string, lo, hi uint64) (lost transport.ByKind, last uint64) {
	b := n.nodes[id].inbox.book(n, epoch)
	for seq, e := range b.pending {
		if seq >= lo && seq <= hi {
			n.nodes[e.from].count.add(dropped, e.kind, 1, e.size)
			lost[e.kind].Add(transport.Counter{Messages: 1, Bytes: int64(e.size)})
			last = max(last, seq)
			delete(b.pending, seq)
		}
	}
	b.addGap(lo, hi)
	if hi != math.MaxUint64 {
		b.cursor = max(b.cursor, hi)
	}
	return lost, last
}

// closeInbox records that node id's endpoint closed: every note in flight
// to it, and every note recorded until it reopens, is dropped. n.mu is
// held.
func (n *Network) closeInbox(id transport.NodeID) {
	ib := n.nodes[id].inbox
	ib.closed = true
	for _, b := range ib.books {
		for seq, e := range b.pending {
			n.nodes[e.from].count.add(dropped, e.kind, 1, e.size)
			delete(b.pending, seq)
		}
	}
}

// openInbox records that node id opened its inbox in epoch with the
// marker note marker: it reads after it, so the notes before it (and
// those of other epochs) that it had not handled are dropped. The notes
// recorded while the Open was connecting stay in flight if they come
// after the marker. n.mu is held.
func (n *Network) openInbox(id transport.NodeID, epoch string, marker uint64) {
	nd := n.nodes[id]
	if nd.inbox == nil {
		nd.inbox = &inbox{}
	}
	ib := nd.inbox
	ib.closed = false
	for _, b := range ib.books {
		for seq, e := range b.pending {
			if b.epoch != epoch || seq < marker {
				n.nodes[e.from].count.add(dropped, e.kind, 1, e.size)
				delete(b.pending, seq)
			}
		}
	}
	b := ib.book(n, epoch)
	b.addGap(b.cursor+1, marker-1)
	b.cursor = max(b.cursor, marker)
}

// LossKind says what a Loss lost.
type LossKind uint8

// Kinds of loss.
const (
	// Restart: the store lost its data (a Redis restarted without
	// persistence): the inbox's notes not yet read are gone.
	Restart LossKind = iota + 1
	// Trimmed: the inbox's cap (exchange.Limits.MaxNotes) dropped notes
	// before they were read.
	Trimmed
	// Unreadable: a note that can never be read (not a note of this
	// package, a message that does not decode, a blob gone or corrupt).
	Unreadable
	// Unsent: Send could not reach the store; the message was dropped.
	Unsent
)

func (k LossKind) String() string {
	switch k {
	case Restart:
		return "restart"
	case Trimmed:
		return "trimmed"
	case Unreadable:
		return "unreadable"
	case Unsent:
		return "unsent"
	}
	return fmt.Sprintf("LossKind(%d)", uint8(k))
}

// Loss reports messages lost by the store, as an endpoint detected it.
// The transport's contract allows losses — the protocol on top
// retransmits, renews leases and rejoins — so the endpoint goes on; a
// Loss says what was lost and why.
type Loss struct {
	Kind LossKind
	// Node is the endpoint that detected the loss: the inbox's owner, or
	// the sender for Unsent.
	Node transport.NodeID
	// Epoch is the epoch the notes were numbered in; Now, for Restart,
	// the epoch adopted after the loss.
	Epoch, Now string
	// From and To are the inbox's notes lost, inclusive. For Restart, To
	// is the last note known to have been written (by this Network's
	// senders), 0 if none: every note after From − 1 was lost, however
	// many there were.
	From, To uint64
	// Messages counts, by kind, the lost messages that this Network's
	// endpoints sent (the ledger's drops): all of them when every node
	// runs on this Network, as in harness's goroutine runtime. For
	// Unsent, the message Send dropped.
	Messages transport.ByKind
	// Err is the store's error (an *exchange.EpochError, an
	// *exchange.TrimmedError, exchange.ErrUnavailable…) or what made a
	// note unreadable.
	Err error
}

// Error describes the loss in one line.
func (l Loss) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "storenet: ")
	switch l.Kind {
	case Unsent:
		fmt.Fprintf(&b, "%v: a message could not be sent (dropped)", l.Node)
	case Restart:
		fmt.Fprintf(&b, "%v's inbox: the store lost its data (epoch %s, now %s): notes after %d were not read", l.Node, l.Epoch, l.Now, l.From-1)
		if l.To > 0 {
			fmt.Fprintf(&b, " (written up to %d)", l.To)
		}
	case Trimmed:
		fmt.Fprintf(&b, "%v's inbox: notes %d to %d were dropped by its cap before they were read", l.Node, l.From, l.To)
	case Unreadable:
		fmt.Fprintf(&b, "%v's inbox: note %d skipped", l.Node, l.From)
	default:
		fmt.Fprintf(&b, "%v: %v", l.Node, l.Kind)
	}
	if t := l.Messages.Total(); t.Messages > 0 {
		var kinds []string
		for _, k := range transport.Kinds() {
			if c := l.Messages[k].Messages; c > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %v", c, k))
			}
		}
		fmt.Fprintf(&b, "; lost %d messages sent here (%s)", t.Messages, strings.Join(kinds, ", "))
	}
	if l.Err != nil {
		fmt.Fprintf(&b, ": %v", l.Err)
	}
	return b.String()
}

// Unwrap returns Err.
func (l Loss) Unwrap() error { return l.Err }
