package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// chunkings are (workers, chunk size) pairs that must all give the same
// result as the defaults.
var chunkings = []struct{ workers, size int }{{1, 1}, {1, 5}, {2, 1}, {3, 7}, {4, 64}, {8, 3}}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestChunkingInvariance checks that results and errors do not depend on
// the chunk size or the number of parsing goroutines.
func TestChunkingInvariance(t *testing.T) {
	var csvInputs, svmInputs []string
	for _, tt := range csvErrors {
		csvInputs = append(csvInputs, tt.in)
	}
	for _, tt := range libsvmErrors {
		svmInputs = append(svmInputs, tt.in)
	}
	good := string(higgsLike(50))
	csvInputs = append(csvInputs, good, "h,a,b\n"+good, good+"1,2\n", strings.Repeat("\n", 30)+"1,2\n3\n",
		good[:len(good)-300]+",x\n", strings.Replace(good, ",", ",,", 1000))
	svmGood := string(libsvmLike(50, 1000, 5))
	svmInputs = append(svmInputs, svmGood, svmGood+"1 3:1 2:1\n", "# c\n\n"+svmGood)
	for _, in := range csvInputs {
		for _, header := range []bool{false, true} {
			opt := CSVOptions{Header: header}
			want, wantErr := ParseCSV(strings.NewReader(in), "c.csv", opt)
			for _, ck := range chunkings {
				got, err := parseCSV(strings.NewReader(in), "c.csv", opt, ck.workers, ck.size)
				if errString(err) != errString(wantErr) || !reflect.DeepEqual(got, want) {
					t.Errorf("parseCSV(%.40q, %+v, workers %d, size %d) = %v, %v; want %v, %v",
						in, opt, ck.workers, ck.size, got, err, want, wantErr)
				}
			}
		}
	}
	for _, in := range svmInputs {
		want, wantErr := ParseLIBSVM(strings.NewReader(in), "s.svm", LIBSVMOptions{})
		for _, ck := range chunkings {
			got, err := parseLIBSVM(strings.NewReader(in), "s.svm", LIBSVMOptions{}, ck.workers, ck.size)
			if errString(err) != errString(wantErr) || !reflect.DeepEqual(got, want) {
				t.Errorf("parseLIBSVM(%.40q, workers %d, size %d) = %v, %v; want %v, %v",
					in, ck.workers, ck.size, got, err, want, wantErr)
			}
		}
	}
}

// TestChunkerLines checks line numbering and line splitting across chunk
// boundaries, for every chunk size up to beyond the input.
func TestChunkerLines(t *testing.T) {
	in := "a\r\n\nbb\rb\r\n" + strings.Repeat("x", 40) + "\n\r\nlast"
	want := strings.Split(strings.ReplaceAll(in, "\r\n", "\n"), "\n")
	for size := 1; size < 60; size++ {
		ch := &chunker{r: strings.NewReader(in), name: "in", size: size}
		var got []string
		next := 1
		var buf []byte
		for {
			c, ok := ch.next(buf)
			if !ok {
				break
			}
			if c.err != nil {
				t.Fatalf("size %d: %v", size, c.err)
			}
			for n, line := range c.lines() {
				if n != next {
					t.Fatalf("size %d: line %q numbered %d; want %d", size, line, n, next)
				}
				next++
				got = append(got, string(line))
			}
			buf = c.buf
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("size %d: lines %q; want %q", size, got, want)
		}
	}
}

// failingReader returns data, then err.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReadError checks that a read error mid-input is a *ParseError naming
// the line being read and wrapping the cause, whatever the chunking.
func TestReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	in := []byte("1,2\n3,4\n5,") // fails in the middle of line 3
	for _, ck := range append(chunkings, struct{ workers, size int }{4, chunkSize}) {
		_, err := parseCSV(&failingReader{data: in, err: boom}, "f.csv", CSVOptions{}, ck.workers, ck.size)
		checkParseError(t, err, "f.csv", 3, 0, "disk on fire")
		if !errors.Is(err, boom) {
			t.Errorf("errors.Is(%v, boom) = false", err)
		}
	}
	// A parse error before the read error wins.
	_, err := parseCSV(&failingReader{data: []byte("1,2\n3,x\n5,"), err: boom}, "f.csv", CSVOptions{}, 3, 2)
	checkParseError(t, err, "f.csv", 2, 0, `column 2 "x"`)
	_, err = ParseMovieLens(&failingReader{data: []byte("1::2::3::4\n"), err: boom}, "r.dat")
	checkParseError(t, err, "r.dat", 2, 0, "disk on fire")
	_, err = ParseLIBSVM(&failingReader{data: []byte("1 1:1\n-1"), err: boom}, "r.svm", LIBSVMOptions{})
	checkParseError(t, err, "r.svm", 2, 0, "disk on fire")
}

// TestLinesLongerThanAChunk checks lines many times longer than a chunk.
func TestLinesLongerThanAChunk(t *testing.T) {
	var b bytes.Buffer
	for row := range 4 {
		for c := range 500 {
			if c > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, row*500+c)
		}
		b.WriteByte('\n')
	}
	want, err := ParseCSV(bytes.NewReader(b.Bytes()), "l.csv", CSVOptions{LabelColumn: -1})
	if err != nil || want.N != 4 || want.D != 500 {
		t.Fatalf("ParseCSV = %v, %v; want 4×500", want, err)
	}
	for _, ck := range chunkings {
		got, err := parseCSV(bytes.NewReader(b.Bytes()), "l.csv", CSVOptions{LabelColumn: -1}, ck.workers, ck.size)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseCSV(workers %d, size %d) = %v, %v; want the 4×500 matrix", ck.workers, ck.size, got, err)
		}
	}
}

// TestNoGoroutineLeak checks that parallel parsing stops and joins its
// goroutines on success and on an early error.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	good := higgsLike(500) // about 90 chunks of 4096 bytes
	bad := append([]byte("1,x\n"), good...)
	for range 5 {
		if _, err := parseCSV(bytes.NewReader(good), "g.csv", CSVOptions{}, 4, 4096); err != nil {
			t.Fatal(err)
		}
		if _, err := parseCSV(bytes.NewReader(bad), "b.csv", CSVOptions{}, 4, 4096); err == nil {
			t.Fatal("parseCSV(bad) succeeded")
		}
		if _, err := parseCSV(noLen{io.MultiReader(bytes.NewReader(good), &failingReader{err: io.ErrClosedPipe})}, "e.csv", CSVOptions{}, 4, 4096); err == nil {
			t.Fatal("parseCSV(failing reader) succeeded")
		}
	}
	// Goroutines have been joined before parseCSV returned; allow the
	// runtime a moment to retire them.
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Errorf("%d goroutines after parsing; %d before", runtime.NumGoroutine(), before)
}

// TestRunChunksParallel checks that chunks are parsed concurrently: the
// parses of chunks 1 and 2 each wait for the other to start, which would
// time out if runChunks parsed one chunk at a time.
func TestRunChunksParallel(t *testing.T) {
	in := strings.Repeat("line\n", 100)
	arrived := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	var consumed []int
	err := runChunks(strings.NewReader(in), "p", 2, 10,
		func(c *chunk) bool {
			if c.seq != 1 && c.seq != 2 {
				return true
			}
			me, other := c.seq-1, 2-c.seq
			close(arrived[me])
			select {
			case <-arrived[other]:
				return true
			case <-time.After(10 * time.Second):
				return false
			}
		},
		func(c *chunk, ok bool) error {
			if !ok {
				return fmt.Errorf("chunk %d was parsed alone", c.seq)
			}
			consumed = append(consumed, c.seq)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range consumed {
		if s != i {
			t.Fatalf("chunks consumed in order %v; want 0, 1, 2, ...", consumed)
		}
	}
}
