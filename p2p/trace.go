package p2p

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// Kind says what a trace record saw.
type Kind uint8

// Record kinds.
const (
	// Publish: Peer published its update of round Round (Update) to its
	// slot.
	Publish Kind = iota + 1
	// Read: Peer, in its round Round, read Update from Update.Peer's slot
	// (exchange.Peer.Fresh, or Latest).
	Read
	// Average: Peer, in its round Round, averaged Updates (its own among
	// them, merged in that order) and applied the mean gradient to its
	// replica, which then hashes to Digest.
	Average
	// Loss: Peer learnt that the store had lost its data (an
	// exchange.LostError) in its round Round.
	Loss
	// Recover: Peer recovered (exchange.Peer.Recover): it adopted the new
	// epoch and restored its latest update and its barrier arrivals.
	Recover
	// Done: Peer finished its last round.
	Done
)

var kindNames = [...]string{"?", "publish", "read", "average", "loss", "recover", "done"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Update names one published update: its peer, its sequence number in
// the store (exchange.UpdateID's Seq) and the round it was computed in.
type Update struct {
	Peer  int
	Seq   uint64
	Round int
}

func (u Update) String() string {
	if uint64(u.Round) == u.Seq {
		return fmt.Sprintf("p%d@%d", u.Peer, u.Round)
	}
	return fmt.Sprintf("p%d#%d@%d", u.Peer, u.Seq, u.Round)
}

// Record is one thing a peer did, at the virtual time it was done.
type Record struct {
	At      time.Duration
	Kind    Kind
	Peer    int
	Round   int
	Update  Update   // Publish, Read
	Updates []Update // Average
	Digest  uint64   // Average
}

func (r Record) String() string {
	switch r.Kind {
	case Publish:
		return fmt.Sprintf("%v p%d r%d publish %v", r.At, r.Peer, r.Round, r.Update)
	case Read:
		return fmt.Sprintf("%v p%d r%d read %v", r.At, r.Peer, r.Round, r.Update)
	case Average:
		s := make([]string, len(r.Updates))
		for i, u := range r.Updates {
			s[i] = u.String()
		}
		return fmt.Sprintf("%v p%d r%d average [%s] digest=%016x", r.At, r.Peer, r.Round, strings.Join(s, " "), r.Digest)
	}
	return fmt.Sprintf("%v p%d r%d %v", r.At, r.Peer, r.Round, r.Kind)
}

// Trace is the record of a peer-to-peer run: what every peer published,
// read and averaged, in virtual-time order. Check verifies it.
type Trace struct {
	Mode    Mode
	Barrier Barrier // Sync
	Peers   int
	Rounds  int
	Records []Record
}

// Add appends a record.
func (t *Trace) Add(r Record) { t.Records = append(t.Records, r) }

// WriteTo writes the trace as text, one record per line: what two runs
// with the same seed reproduce byte for byte, on any store.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	k, _ := fmt.Fprintf(bw, "p2p %v", t.Mode)
	n += int64(k)
	if t.Mode == Sync {
		k, _ = fmt.Fprintf(bw, " %v", t.Barrier)
		n += int64(k)
	}
	k, _ = fmt.Fprintf(bw, " peers %d rounds %d\n", t.Peers, t.Rounds)
	n += int64(k)
	for _, r := range t.Records {
		k, _ = fmt.Fprintln(bw, r)
		n += int64(k)
	}
	return n, bw.Flush()
}
