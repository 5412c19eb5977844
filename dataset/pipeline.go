package dataset

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"runtime"
	"sync"
)

// Text loaders cut their input into chunks of whole lines. CSV and LIBSVM
// parse chunks on several goroutines and merge the parts in input order, so
// the result (and the error, which is always the one on the earliest bad
// line) does not depend on the chunk size or the number of goroutines. The
// goroutines are joined before the loader returns.

// chunkSize is the default size of a chunk.
const chunkSize = 1 << 20

// firstChunkSize is the size of the first chunk, smaller so that small
// inputs are cheap.
const firstChunkSize = 64 << 10

// maxWorkers caps the parsing goroutines of one loader.
const maxWorkers = 16

// defaultWorkers returns the number of parsing goroutines to use.
func defaultWorkers() int { return min(runtime.GOMAXPROCS(0), maxWorkers) }

// chunk is a run of whole lines of the input.
type chunk struct {
	seq  int    // 0, 1, 2, ... in input order
	line int    // number of the first line in data, 1-based
	data []byte // whole lines; the last may lack "\n" at the end of input
	err  error  // if not nil, a *ParseError ending the input (data is empty)
	buf  []byte // backing array of data, recycled after use
}

// lines iterates over the lines of c without their "\n" or "\r\n",
// yielding each with its line number.
func (c *chunk) lines() iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		data, n := c.data, c.line
		for len(data) > 0 {
			line := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				line, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			if !yield(n, line) {
				return
			}
			n++
		}
	}
}

// chunker cuts an input into chunks.
type chunker struct {
	r     io.Reader
	name  string
	size  int
	seq   int
	line  int    // lines handed out so far
	carry []byte // start of a line not yet handed out
	eof   bool   // r is exhausted (or failed: then rerr is set)
	rerr  error
	done  bool
}

// next returns the next chunk, reusing buf if it is big enough, or
// ok == false at the end of the input. After a chunk with err set it
// returns no more.
func (ch *chunker) next(buf []byte) (c chunk, ok bool) {
	if ch.done {
		return chunk{}, false
	}
	size := ch.size
	if ch.seq == 0 {
		size = min(size, firstChunkSize) // small inputs need no more
	}
	if cap(buf) < size || cap(buf) < 2*len(ch.carry) {
		buf = make([]byte, max(size, 2*len(ch.carry)))
	}
	buf = buf[:cap(buf)]
	n := copy(buf, ch.carry)
	ch.carry = ch.carry[:0]
	for {
		if !ch.eof && n < len(buf) {
			m, err := io.ReadFull(ch.r, buf[n:])
			n += m
			switch err {
			case nil:
			case io.EOF, io.ErrUnexpectedEOF:
				ch.eof = true
			default:
				ch.eof, ch.rerr = true, err
			}
		}
		end := n // bytes of whole lines
		if !ch.eof || ch.rerr != nil {
			end = bytes.LastIndexByte(buf[:n], '\n') + 1
		}
		if end == 0 && n > 0 && !ch.eof {
			// No newline in a full buffer: the line is longer than it.
			if n >= maxLine {
				ch.done = true
				return ch.fail(&ParseError{File: ch.name, Line: ch.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}), true
			}
			bigger := make([]byte, min(2*len(buf), maxLine+1))
			copy(bigger, buf[:n])
			buf = bigger
			continue
		}
		if end == 0 {
			// Nothing left but, perhaps, a read error.
			ch.done = true
			if ch.rerr != nil {
				return ch.fail(&ParseError{File: ch.name, Line: ch.line + 1, Err: ch.rerr}), true
			}
			return chunk{}, false
		}
		ch.carry = append(ch.carry, buf[end:n]...)
		c = chunk{seq: ch.seq, line: ch.line + 1, data: buf[:end], buf: buf}
		ch.seq++
		ch.line += bytes.Count(c.data, []byte{'\n'})
		if c.data[end-1] != '\n' {
			ch.line++ // the final line, without a newline
		}
		if ch.eof && ch.rerr == nil && len(ch.carry) == 0 {
			ch.done = true
		}
		return c, true
	}
}

// fail returns a chunk carrying err.
func (ch *chunker) fail(err error) chunk {
	c := chunk{seq: ch.seq, line: ch.line + 1, err: err}
	ch.seq++
	return c
}

// runChunks cuts r into chunks of about size bytes, calls parse on each
// (on up to workers goroutines when there is more than one chunk) and then
// consume on each chunk with its part, in input order, on the calling
// goroutine. It stops at the first error: a chunk's read error, or an
// error from consume. All goroutines have exited when it returns.
func runChunks[P any](r io.Reader, name string, workers, size int,
	parse func(c *chunk) P, consume func(c *chunk, part P) error) error {
	ch := &chunker{r: r, name: name, size: size}
	first, ok := ch.next(nil)
	if !ok {
		return nil
	}
	if workers <= 1 || ch.done {
		// Sequential: on the calling goroutine.
		for c := first; ; {
			if c.err != nil {
				return c.err
			}
			if err := consume(&c, parse(&c)); err != nil {
				return err
			}
			if c, ok = ch.next(c.buf); !ok {
				return nil
			}
		}
	}

	type job struct {
		c     chunk
		part  P
		ready chan struct{} // closed when part is set
	}
	inFlight := 2*workers + 1
	free := make(chan []byte, inFlight) // recycled buffers; bounds jobs in flight
	for range inFlight - 1 {
		free <- nil
	}
	work := make(chan *job, inFlight)
	order := make(chan *job, inFlight)
	stop := make(chan struct{})
	var wg sync.WaitGroup

	wg.Add(1)
	go func() { // producer: reads (and decompresses) the input
		defer wg.Done()
		defer close(work)
		defer close(order)
		c, ok := first, true
		for ok {
			j := &job{c: c, ready: make(chan struct{})}
			if c.err != nil {
				close(j.ready)
			} else {
				select {
				case work <- j:
				case <-stop:
					return
				}
			}
			select {
			case order <- j:
			case <-stop:
				return
			}
			var buf []byte
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			c, ok = ch.next(buf)
		}
	}()
	for range workers {
		wg.Add(1)
		go func() { // workers: parse chunks in any order
			defer wg.Done()
			for j := range work {
				select {
				case <-stop:
				default:
					j.part = parse(&j.c)
				}
				close(j.ready)
			}
		}()
	}

	var err error
	for j := range order {
		<-j.ready
		if j.c.err != nil {
			err = j.c.err
			break
		}
		if err = consume(&j.c, j.part); err != nil {
			break
		}
		free <- j.c.buf
	}
	close(stop)
	wg.Wait()
	return err
}
