package dataset

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// LIBSVMOptions configures ReadLIBSVM and ParseLIBSVM.
type LIBSVMOptions struct {
	// Dim is the number of columns D, at most math.MaxInt32; every column
	// must be below it. 0 (the default) infers D as the largest column + 1.
	Dim int
	// ZeroBased says the file's feature indices start at 0. The default,
	// false, is LIBSVM's convention: indices start at 1 and column j of the
	// result holds index j+1.
	ZeroBased bool
}

// ReadLIBSVM reads a LIBSVM / SVMlight file (raw, gzip or bzip2) into a
// Sparse matrix with labels. See ParseLIBSVM for the format.
func ReadLIBSVM(path string, opt LIBSVMOptions) (*Sparse, error) {
	f, _, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseLIBSVM(f, path, opt)
}

// ParseLIBSVM parses LIBSVM / SVMlight text from r (raw, gzip or bzip2);
// name is used in errors. Each non-blank line is one row:
//
//	label index:value index:value ... # optional comment
//
// separated by spaces or tabs. The label is a finite number kept as given
// (+1, -1, 0, 3.5, ...). Indices are decimal integers, strictly increasing
// within a line, 1-based unless opt.ZeroBased. Values are finite numbers;
// explicit zeros are stored. A "qid:N" token (SVMlight ranking data) is
// accepted directly after the label and ignored. Blank lines and lines
// holding only a comment are not rows and are skipped. Anything else that
// does not fit, including NaN or ±Inf values, is a *ParseError naming the
// line and the field.
//
// Large inputs are parsed on up to GOMAXPROCS goroutines (at most 16); the
// result does not depend on how many.
func ParseLIBSVM(r io.Reader, name string, opt LIBSVMOptions) (*Sparse, error) {
	return parseLIBSVM(r, name, opt, defaultWorkers(), chunkSize)
}

// libsvmPart is the parse of one chunk.
type libsvmPart struct {
	labels  []float64
	indptr  []int // relative to the chunk, starting at 0
	indices []int32
	values  []float64
	maxCol  int32
	err     error
}

func parseLIBSVM(r io.Reader, name string, opt LIBSVMOptions, workers, size int) (*Sparse, error) {
	if opt.Dim < 0 || opt.Dim > math.MaxInt32 {
		return nil, fmt.Errorf("dataset: LIBSVMOptions.Dim = %d, want 0..%d", opt.Dim, math.MaxInt32)
	}
	br, _, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	m := &Sparse{Indptr: []int{0}, Indices: []int32{}, Values: []float64{}, Labels: []float64{}}
	maxCol := int32(-1)
	err = runChunks(br, name, workers, size,
		func(c *chunk) libsvmPart { return parseLIBSVMChunk(c, name, opt) },
		func(c *chunk, part libsvmPart) error {
			if part.err != nil {
				return part.err
			}
			base := len(m.Indices)
			for _, p := range part.indptr[1:] {
				m.Indptr = append(m.Indptr, base+p)
			}
			m.Indices = append(m.Indices, part.indices...)
			m.Values = append(m.Values, part.values...)
			m.Labels = append(m.Labels, part.labels...)
			maxCol = max(maxCol, part.maxCol)
			return nil
		})
	if err != nil {
		return nil, err
	}
	m.N = len(m.Labels)
	m.D = int(maxCol) + 1
	if opt.Dim > 0 {
		m.D = opt.Dim
	}
	return m, nil
}

// parseLIBSVMChunk parses the lines of c.
func parseLIBSVMChunk(c *chunk, name string, opt LIBSVMOptions) libsvmPart {
	// The largest allowed file index.
	limit := uint64(math.MaxInt32)
	if opt.Dim > 0 {
		limit = uint64(opt.Dim)
	}
	if opt.ZeroBased {
		limit--
	}
	part := libsvmPart{indptr: []int{0}, maxCol: -1,
		indices: make([]int32, 0, len(c.data)/8), values: make([]float64, 0, len(c.data)/8)}
	for n, line := range c.lines() {
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fail := func(k int, tok []byte, msg string) libsvmPart {
			field := "label " + quote(tok)
			if k > 0 {
				field = fmt.Sprintf("feature %d %s", k, quote(tok))
			}
			part.err = &ParseError{File: name, Line: n, Field: field, Msg: msg}
			return part
		}
		tok, rest := nextToken(line)
		if len(tok) == 0 {
			continue // blank or comment-only line
		}
		y, msg := parseFinite(tok)
		if msg != "" {
			return fail(0, tok, msg)
		}
		start := len(part.indices)
		prev := int64(-1)
		// k numbers the features for errors; pos counts all tokens after
		// the label, so that a qid is accepted only directly after it.
		for k, pos := 1, 1; ; pos++ {
			tok, rest = nextToken(rest)
			if len(tok) == 0 {
				break
			}
			c := bytes.IndexByte(tok, ':')
			if c < 0 {
				return fail(k, tok, "missing ':' (want index:value)")
			}
			if bytes.Equal(tok[:c], []byte("qid")) {
				if pos != 1 {
					return fail(k, tok, "qid must come directly after the label")
				}
				if _, msg := parseInt64(tok[c+1:]); msg != "" {
					return fail(k, tok, "qid "+msg)
				}
				continue
			}
			u, msg := parseUint(tok[:c], math.MaxInt32)
			if msg != "" {
				return fail(k, tok, "index "+msg)
			}
			if u > limit {
				if opt.Dim > 0 {
					return fail(k, tok, fmt.Sprintf("index out of range for Dim = %d", opt.Dim))
				}
				return fail(k, tok, fmt.Sprintf("index larger than %d", limit))
			}
			col := int64(u)
			if !opt.ZeroBased {
				if u == 0 {
					return fail(k, tok, "index 0 in a 1-based file (set ZeroBased)")
				}
				col--
			}
			if col <= prev {
				return fail(k, tok, fmt.Sprintf("index %d not greater than the previous index %d", u, fileIndex(prev, opt.ZeroBased)))
			}
			prev = col
			v, msg := parseFinite(tok[c+1:])
			if msg != "" {
				return fail(k, tok, "value "+msg)
			}
			part.indices = append(part.indices, int32(col))
			part.values = append(part.values, v)
			k++
		}
		if len(part.indices) > start {
			part.maxCol = max(part.maxCol, part.indices[len(part.indices)-1])
		}
		part.labels = append(part.labels, y)
		part.indptr = append(part.indptr, len(part.indices))
	}
	return part
}

// fileIndex converts a 0-based column back to the index written in the file.
func fileIndex(col int64, zeroBased bool) int64 {
	if zeroBased {
		return col
	}
	return col + 1
}

// nextToken splits off the first space- or tab-separated token of b.
func nextToken(b []byte) (tok, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j], b[j:]
}
