package exchange

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"strconv"

	"github.com/syncmodels/syncmodels/internal/wire"
	"github.com/syncmodels/syncmodels/transport"
)

// The value a Peer stores in a slot, a key or a note is an envelope: one
// tag byte, then
//
//	'M'  (inline) the update itself: transport.Message.AppendBinary's
//	     encoding, to the end of the value
//	'R'  (reference) where the update is, MLLess-style:
//	       uvarint  Job
//	       varint   Peer (zig-zag)
//	       uvarint  Incarnation (≤ 2^32−1)
//	       uvarint  Seq
//	       uvarint  Version
//	       uvarint  Clock
//	       uvarint  size of the blob in bytes
//	       4 bytes  CRC-32C (Castagnoli) of the blob, little-endian
//	       uvarint  length of the blob's key, then the key (CheckName's
//	                alphabet)
//	     and the blob under that key holds the update's AppendBinary
//	     encoding, with no tag.
//
// Varints are minimal (internal/wire refuses overlong ones). Decoding
// checks every byte; a reader also checks that the blob has the size,
// checksum and header its reference announces, and that the update is of
// its job and from the peer whose slot it read.
const (
	tagInline = 'M'
	tagRef    = 'R'
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ref is a decoded reference.
type ref struct {
	id      UpdateID
	version uint64
	clock   uint64
	size    int
	sum     uint32
	key     string
}

// appendRef appends r's envelope to b.
func appendRef(b []byte, r *ref) []byte {
	b = append(b, tagRef)
	b = binary.AppendUvarint(b, r.id.Job)
	b = binary.AppendVarint(b, int64(r.id.Peer))
	b = binary.AppendUvarint(b, uint64(r.id.Incarnation))
	b = binary.AppendUvarint(b, r.id.Seq)
	b = binary.AppendUvarint(b, r.version)
	b = binary.AppendUvarint(b, r.clock)
	b = binary.AppendUvarint(b, uint64(r.size))
	b = binary.LittleEndian.AppendUint32(b, r.sum)
	b = binary.AppendUvarint(b, uint64(len(r.key)))
	return append(b, r.key...)
}

// envelope is a decoded envelope: an inline encoding or a reference.
type envelope struct {
	inline []byte // the message's encoding (a subslice of the value)
	ref    *ref
}

// decodeEnvelope decodes the value stored under key (named in errors).
func decodeEnvelope(key string, v []byte) (envelope, error) {
	r := wire.Reader{B: v, Prefix: "exchange: value of " + strconv.Quote(key), Malformed: ErrMalformed}
	tag, err := r.Byte("tag")
	if err != nil {
		return envelope{}, err
	}
	switch tag {
	case tagInline:
		return envelope{inline: v[1:]}, nil
	case tagRef:
	default:
		return envelope{}, r.Fail("unknown tag %#x at byte 0 (want 'M' or 'R')", tag)
	}
	var f ref
	if f.id.Job, err = r.Uvarint("Job"); err != nil {
		return envelope{}, err
	}
	at := r.Off
	p, err := r.Varint("Peer")
	if err != nil {
		return envelope{}, err
	}
	if !transport.NodeID(p).Valid() || p != int64(transport.NodeID(p)) {
		return envelope{}, r.Fail("peer %d at byte %d is not a node ID", p, at)
	}
	f.id.Peer = transport.NodeID(p)
	at = r.Off
	inc, err := r.Uvarint("Incarnation")
	if err != nil {
		return envelope{}, err
	}
	if inc > math.MaxUint32 {
		return envelope{}, r.Fail("Incarnation %d at byte %d exceeds 2^32-1", inc, at)
	}
	f.id.Incarnation = uint32(inc)
	if f.id.Seq, err = r.Uvarint("Seq"); err != nil {
		return envelope{}, err
	}
	if f.version, err = r.Uvarint("Version"); err != nil {
		return envelope{}, err
	}
	if f.clock, err = r.Uvarint("Clock"); err != nil {
		return envelope{}, err
	}
	if f.size, err = r.Count("blob size", math.MaxInt32); err != nil {
		return envelope{}, err
	}
	sum, err := r.Take(4, "checksum")
	if err != nil {
		return envelope{}, err
	}
	f.sum = binary.LittleEndian.Uint32(sum)
	n, err := r.Count("key length", MaxName)
	if err != nil {
		return envelope{}, err
	}
	k, err := r.Take(n, "key")
	if err != nil {
		return envelope{}, err
	}
	if err := r.End(); err != nil {
		return envelope{}, err
	}
	f.key = string(k)
	if err := CheckName("blob key", f.key); err != nil {
		return envelope{}, r.Fail("%v", err)
	}
	return envelope{ref: &f}, nil
}
