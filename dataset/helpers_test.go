package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gz returns b gzip-compressed.
func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// idxBytes builds an IDX file: magic, big-endian dimension sizes, data.
func idxBytes(magic uint32, dims []uint32, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, magic)
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return append(b, data...)
}

// seq returns n bytes 0, 1, 2, ... (mod 256).
func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// noLen hides a reader's Len method, so the parser cannot know its size.
type noLen struct{ io.Reader }

// writeTemp writes b to a new file named name in a temporary directory.
func writeTemp(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// errCase is a malformed input and what its error must say.
type errCase struct {
	name   string
	in     string
	line   int      // want ParseError.Line (text formats)
	record int      // want ParseError.Record (IDX)
	want   []string // substrings of the message
}

// checkParseError checks that err is a *ParseError for file with the given
// line and record whose message contains every want.
func checkParseError(t *testing.T, err error, file string, line, record int, want ...string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Errorf("error = %v (%T); want *ParseError", err, err)
		return
	}
	if pe.File != file || pe.Line != line || pe.Record != record {
		t.Errorf("error %q: file %q line %d record %d; want %q line %d record %d", err, pe.File, pe.Line, pe.Record, file, line, record)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "dataset: "+file) {
		t.Errorf("error %q does not start with %q", msg, "dataset: "+file)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
}
