package harness

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
)

// The coordinator's journal (Experiment.Journal): a write-ahead log of
// the inputs that change the real runtime's coordinator state, so that a
// coordinator killed at any point resumes exactly where it was.
//
// The coordinator is a deterministic state machine over its inputs: the
// workers' commits, joins and leaves, the leases that ran out, the
// model's timer ticks, the objective snapshots, all at the times they
// were handled. It appends each to the journal before acting on it, and
// flushes and fsyncs the journal before it sends anything: no worker has
// seen an acknowledgement, a release or a refusal whose cause is not
// durable. A restarted coordinator replays the journal through the same
// code (sending nothing), which rebuilds the model, the server's state
// bit for bit, the trace, the curve and each worker's sequence numbers,
// incarnations and latest release; it then goes on where the journal
// ends. The workers reconnect (their streams broke with the old
// process) and their retransmissions and heartbeats recover whatever was
// in flight: a commit the old coordinator never made durable was never
// acknowledged, so its worker sends it again.
//
// Format: a header line "syncmodels-journal 1 " followed by the job's
// identity as JSON and a newline; then records, each a little-endian
// uint32 length n, a uint32 CRC-32C of the payload, and n bytes of
// payload: a kind byte, the time (varint nanoseconds) and the kind's
// fields. A record cut short by a crash (its length runs past the end of
// the file, or the last record's checksum fails) was never fsynced, so
// nothing depended on it: it is cut off. A bad checksum before the last
// record is corruption, and the journal is refused.
//
// The journal is locked (flock, on Unix) while a coordinator has it open, so a
// second coordinator on the same journal is refused; a lock on a network
// file system may not hold across hosts.
//
// The journal grows with every commit's delta; compaction (a snapshot of
// the server's state replacing the log before it) is not implemented.

const journalMagic = "syncmodels-journal 1 "

// Journal record kinds.
const (
	jStart      byte = iota + 1 // the run started (EvStart)
	jRegistered                 // worker, incarnation: joined before the start
	jMessage                    // a worker's Commit, Join or Leave, handled
	jLeave                      // worker, reason: its lease ran out
	jTick                       // the model's timer fired (EvTick)
	jSnapshot                   // an objective snapshot
	jResume                     // a restarted coordinator resumed here
	jDrain                      // the run's time was up: the drain began
)

// journalID is the header's identity of a job: a journal of another job
// is refused.
type journalID struct {
	Seed    uint64            `json:"seed"`
	Sync    string            `json:"sync"`
	Workers int               `json:"workers"`
	Name    string            `json:"algorithm"`
	Layout  algorithms.Layout `json:"layout"`
}

type journalRecord struct {
	kind   byte
	at     time.Duration
	worker int
	inc    uint32
	reason string
	msg    *transport.Message
}

// journal appends records to the file and syncs them on demand.
type journal struct {
	f     *os.File
	w     *bufio.Writer
	buf   []byte
	dirty bool
	syncs int64
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// openJournal opens (creating if need be) the journal at path for e's
// job, and returns it with the records it already holds, cutting off a
// torn last record.
func openJournal(path string, e *Experiment, l algorithms.Layout) (*journal, []journalRecord, error) {
	id := journalID{Seed: e.Seed, Sync: e.Sync.String(), Workers: e.Workers, Name: e.Algorithm.Name(), Layout: l}
	want, err := json.Marshal(id)
	if err != nil {
		return nil, nil, err
	}
	header := append(append([]byte(journalMagic), want...), '\n')
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("harness: journal: %w", err)
	}
	fail := func(err error) (*journal, []journalRecord, error) {
		f.Close()
		return nil, nil, err
	}
	// One coordinator per journal: a second one (a restart while the
	// first still runs, partitioned rather than dead) is refused rather
	// than allowed to write over it. The lock ends with the process.
	if err := lockFile(f); err != nil {
		return fail(fmt.Errorf("harness: journal %s is in use by another coordinator (%v); stop it first: %w", path, err, ErrConfig))
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fail(fmt.Errorf("harness: journal %s: %w", path, err))
	}
	var recs []journalRecord
	end := int64(len(header))
	switch {
	case len(data) == 0:
		if _, err := f.Write(header); err != nil {
			return fail(fmt.Errorf("harness: journal %s: %w", path, err))
		}
		if err := syncDir(f, path); err != nil {
			return fail(err)
		}
	case !bytes.HasPrefix(data, header):
		line, _, _ := bytes.Cut(data, []byte("\n"))
		return fail(fmt.Errorf("harness: journal %s is not this job's: its header is %.200q, want %.200q: %w", path, line, header[:len(header)-1], ErrConfig))
	default:
		if recs, end, err = readJournal(data[len(header):], l); err != nil {
			return fail(fmt.Errorf("harness: journal %s: %w", path, err))
		}
		end += int64(len(header))
		if err := f.Truncate(end); err != nil {
			return fail(fmt.Errorf("harness: journal %s: %w", path, err))
		}
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		return fail(fmt.Errorf("harness: journal %s: %w", path, err))
	}
	return &journal{f: f, w: bufio.NewWriterSize(f, 1<<16)}, recs, nil
}

// syncDir fsyncs the file and its directory, so that a new journal
// survives a crash.
func syncDir(f *os.File, path string) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("harness: journal %s: %w", path, err)
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return nil // best effort: some systems cannot open directories
	}
	defer d.Close()
	d.Sync()
	return nil
}

// readJournal decodes the records of b and returns them with the length
// of the intact prefix.
func readJournal(b []byte, l algorithms.Layout) ([]journalRecord, int64, error) {
	var recs []journalRecord
	off := 0
	for off < len(b) {
		if len(b)-off < 8 {
			break // a torn header
		}
		n := int(binary.LittleEndian.Uint32(b[off:]))
		sum := binary.LittleEndian.Uint32(b[off+4:])
		if n > len(b)-off-8 {
			break // a torn payload
		}
		p := b[off+8 : off+8+n]
		if crc32.Checksum(p, crcTable) != sum {
			if off+8+n == len(b) {
				break // the last record, torn
			}
			return nil, 0, fmt.Errorf("record at byte %d: checksum mismatch before the end: the journal is corrupt", off)
		}
		r, err := decodeRecord(p, l)
		if err != nil {
			return nil, 0, fmt.Errorf("record at byte %d: %w", off, err)
		}
		recs = append(recs, r)
		off += 8 + n
	}
	return recs, int64(off), nil
}

func decodeRecord(p []byte, l algorithms.Layout) (journalRecord, error) {
	if len(p) < 1 {
		return journalRecord{}, errors.New("empty record")
	}
	r := journalRecord{kind: p[0]}
	at, n := binary.Varint(p[1:])
	if n <= 0 {
		return r, errors.New("bad time")
	}
	r.at, p = time.Duration(at), p[1+n:]
	uv := func() (uint64, error) {
		v, n := binary.Uvarint(p)
		if n <= 0 {
			return 0, errors.New("bad field")
		}
		p = p[n:]
		return v, nil
	}
	switch r.kind {
	case jStart, jTick, jSnapshot, jResume, jDrain:
	case jRegistered:
		w, err := uv()
		if err != nil {
			return r, err
		}
		inc, err := uv()
		if err != nil {
			return r, err
		}
		r.worker, r.inc = int(w), uint32(inc)
	case jLeave:
		w, err := uv()
		if err != nil {
			return r, err
		}
		r.worker, r.reason = int(w), string(p)
	case jMessage:
		m, err := transport.Unmarshal(p, l)
		if err != nil {
			return r, err
		}
		r.msg = m
	default:
		return r, fmt.Errorf("unknown record kind %d", r.kind)
	}
	return r, nil
}

// add appends a record; it becomes durable at the next sync.
func (j *journal) add(r journalRecord) error {
	p := append(j.buf[:0], r.kind)
	p = binary.AppendVarint(p, int64(r.at))
	switch r.kind {
	case jRegistered:
		p = binary.AppendUvarint(p, uint64(r.worker))
		p = binary.AppendUvarint(p, uint64(r.inc))
	case jLeave:
		p = binary.AppendUvarint(p, uint64(r.worker))
		p = append(p, r.reason...)
	case jMessage:
		var err error
		if p, err = r.msg.AppendBinary(p); err != nil {
			return fmt.Errorf("harness: journal: %w", err)
		}
	}
	j.buf = p
	var h [8]byte
	binary.LittleEndian.PutUint32(h[:], uint32(len(p)))
	binary.LittleEndian.PutUint32(h[4:], crc32.Checksum(p, crcTable))
	if _, err := j.w.Write(h[:]); err != nil {
		return fmt.Errorf("harness: journal: %w", err)
	}
	if _, err := j.w.Write(p); err != nil {
		return fmt.Errorf("harness: journal: %w", err)
	}
	j.dirty = true
	return nil
}

// sync makes every record added durable.
func (j *journal) sync() error {
	if !j.dirty {
		return nil
	}
	if err := j.w.Flush(); err != nil {
		return fmt.Errorf("harness: journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("harness: journal: %w", err)
	}
	j.dirty = false
	j.syncs++
	return nil
}

func (j *journal) close() error {
	err := j.sync()
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// JournalGeneration returns the generation a coordinator started on the
// journal at path serves: 1 for a new job (no journal, or one that ends
// before the run started), else one more than the coordinators that ran
// it before (the first, plus one per resume). It reads only the records'
// kinds; a torn tail is ignored as openJournal would cut it.
func JournalGeneration(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("harness: journal %s: %w", path, err)
	}
	_, b, found := bytes.Cut(b, []byte("\n"))
	if !found {
		return 1, nil
	}
	started, resumes := false, uint64(0)
	for len(b) >= 8 {
		n := int(binary.LittleEndian.Uint32(b))
		if n < 1 || n > len(b)-8 {
			break
		}
		switch b[8] {
		case jStart:
			started = true
		case jResume:
			resumes++
		}
		b = b[8+n:]
	}
	if !started {
		return 1, nil
	}
	return 2 + resumes, nil
}
