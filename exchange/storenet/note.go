package storenet

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"

	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/transport"
)

// A note of an inbox is one of (the first byte says which):
//
//	'm' message         the message's encoding (transport.Message's format)
//	'b' size crc key    a message in a blob: uvarint size, the CRC-32C
//	                    (Castagnoli) of its encoding, little-endian, then
//	                    the blob's key (the rest of the note)
//	'o' token           an open marker: the endpoint that opened the inbox
//	                    reads after it (the rest: the opener's token)
const (
	tagMessage = 'm'
	tagBlob    = 'b'
	tagOpen    = 'o'
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// inboxTopic is the topic that holds node id's inbox.
func inboxTopic(id transport.NodeID) string { return "inbox/" + strconv.Itoa(int(id)) }

// nodeKey is the key that registers node id as opened (in this epoch).
func nodeKey(id transport.NodeID) string { return "node/" + strconv.Itoa(int(id)) }

// blobKey is the key of the n-th blob an endpoint (token) sent to node to.
func blobKey(to transport.NodeID, token string, n uint64) string {
	return "msg/" + strconv.Itoa(int(to)) + "/" + token + "/" + strconv.FormatUint(n, 10)
}

// messageNote returns the note that holds encoding b inline.
func messageNote(b []byte) []byte {
	note := make([]byte, 0, 1+len(b))
	return append(append(note, tagMessage), b...)
}

// blobNote returns the note that refers to blob key holding encoding b.
func blobNote(key string, b []byte) []byte {
	note := make([]byte, 0, 1+binary.MaxVarintLen64+4+len(key))
	note = append(note, tagBlob)
	note = binary.AppendUvarint(note, uint64(len(b)))
	note = binary.LittleEndian.AppendUint32(note, crc32.Checksum(b, castagnoli))
	return append(note, key...)
}

// blobRef is a decoded 'b' note.
type blobRef struct {
	size int
	sum  uint32
	key  string
}

// parseBlobNote decodes the body of a 'b' note (after its tag).
func parseBlobNote(body []byte, max int) (blobRef, error) {
	size, n := binary.Uvarint(body)
	if n <= 0 || size > uint64(max) {
		return blobRef{}, fmt.Errorf("blob reference: bad size (limit %d): %w", max, exchange.ErrMalformed)
	}
	body = body[n:]
	if len(body) < 4 {
		return blobRef{}, fmt.Errorf("blob reference: no checksum: %w", exchange.ErrMalformed)
	}
	r := blobRef{size: int(size), sum: binary.LittleEndian.Uint32(body), key: string(body[4:])}
	if err := exchange.CheckName("blob key", r.key); err != nil {
		return blobRef{}, fmt.Errorf("blob reference: %w", err)
	}
	return r, nil
}

// check verifies that b is the blob r refers to.
func (r blobRef) check(b []byte) error {
	if len(b) != r.size || crc32.Checksum(b, castagnoli) != r.sum {
		return fmt.Errorf("blob %q: %d bytes with CRC-32C %08x, the note says %d bytes with %08x: %w",
			r.key, len(b), crc32.Checksum(b, castagnoli), r.size, r.sum, exchange.ErrMalformed)
	}
	return nil
}
