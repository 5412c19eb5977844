package dataset

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// CSVOptions configures ReadCSV and ParseCSV. The zero value reads the
// HIGGS / SUSY layout: comma-separated, no header, label in the first column.
type CSVOptions struct {
	// LabelColumn is the 0-based column holding the label; default 0.
	// -1 means the file has no label column (Labels is nil).
	LabelColumn int
	// Header says the first line is a header, to be skipped unread.
	Header bool
	// Comma is the field separator; default ','. It may not be a quote,
	// '#', '\r', '\n' or an invalid rune.
	Comma rune
}

// ReadCSV reads delimited numeric text (raw, gzip or bzip2) into a Dense
// matrix. See ParseCSV for the format.
func ReadCSV(path string, opt CSVOptions) (*Dense, error) {
	f, _, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseCSV(f, path, opt)
}

// ParseCSV parses numeric delimited text from r (raw, gzip or bzip2); name
// is used in errors.
//
// Every non-blank line is a row of finite numbers separated by opt.Comma,
// all rows with the same number of columns. Column opt.LabelColumn becomes
// the label and the others, in order, the features, so D is the number of
// columns minus one (or the number of columns when LabelColumn is -1).
// Spaces and tabs around a field are ignored (unless one is the separator).
// Quoting is not supported: a quoted field is reported as not a number.
// Blank lines are not rows and are skipped. Ragged rows, empty fields,
// non-numbers and NaN/±Inf are a *ParseError naming the line and the
// 1-based column.
//
// Large inputs are parsed on up to GOMAXPROCS goroutines (at most 16); the
// result does not depend on how many.
func ParseCSV(r io.Reader, name string, opt CSVOptions) (*Dense, error) {
	return parseCSV(r, name, opt, defaultWorkers(), chunkSize)
}

// csvState is what parsing carries from one line to the next: the number of
// columns and the line that set it (-1 and 0 before the first row).
type csvState struct {
	ncols, line int
}

// csvPart is the parse of one chunk.
type csvPart struct {
	x, labels []float64
	rows      int
	st        csvState // the state after the chunk
	err       error
}

// csvParser parses chunks of CSV.
type csvParser struct {
	name   string
	label  int
	header bool
	sep    []byte
	trim   bool
}

func parseCSV(r io.Reader, name string, opt CSVOptions, workers, size int) (*Dense, error) {
	comma := opt.Comma
	if comma == 0 {
		comma = ','
	}
	if !utf8.ValidRune(comma) || comma == utf8.RuneError || comma == '"' || comma == '#' || comma == '\r' || comma == '\n' {
		return nil, fmt.Errorf("dataset: CSVOptions.Comma %q is not a valid separator", comma)
	}
	if opt.LabelColumn < -1 {
		return nil, fmt.Errorf("dataset: CSVOptions.LabelColumn = %d, want -1 (none) or a column number", opt.LabelColumn)
	}
	br, _, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	p := &csvParser{name: name, label: opt.LabelColumn, header: opt.Header,
		sep: utf8.AppendRune(nil, comma), trim: comma != ' ' && comma != '\t'}
	m := &Dense{X: []float64{}}
	if p.label >= 0 {
		m.Labels = []float64{}
	}
	global := csvState{ncols: -1}
	err = runChunks(br, name, workers, size,
		func(c *chunk) csvPart {
			// Parse each chunk on its own; its first row sets the
			// number of columns.
			return p.parse(c, csvState{ncols: -1})
		},
		func(c *chunk, part csvPart) error {
			if part.err != nil || global.ncols >= 0 && part.rows > 0 && part.st.ncols != global.ncols {
				// Parse again knowing the columns of the rows
				// before, to report exactly the error a single pass
				// would.
				if part = p.parse(c, global); part.err != nil {
					return part.err
				}
			}
			if global.ncols < 0 && part.rows > 0 {
				global = part.st
			}
			m.X = append(m.X, part.x...)
			m.Labels = append(m.Labels, part.labels...)
			m.N += part.rows
			return nil
		})
	if err != nil {
		return nil, err
	}
	if global.ncols > 0 {
		m.D = global.ncols
		if p.label >= 0 {
			m.D--
		}
	}
	return m, nil
}

// parse parses the lines of c starting in state st.
func (p *csvParser) parse(c *chunk, st csvState) csvPart {
	part := csvPart{x: make([]float64, 0, len(c.data)/8)}
	if p.label >= 0 {
		part.labels = make([]float64, 0, len(c.data)/64)
	}
	fail := func(err error) csvPart {
		part.err = err
		return part
	}
	for n, line := range c.lines() {
		if p.header && n == 1 {
			continue
		}
		if isBlank(line) {
			continue
		}
		col := 0
		for rest := line; ; col++ {
			var f []byte
			var i int
			if len(p.sep) == 1 {
				i = bytes.IndexByte(rest, p.sep[0])
			} else {
				i = bytes.Index(rest, p.sep)
			}
			if i < 0 {
				f = rest
			} else {
				f, rest = rest[:i], rest[i+len(p.sep):]
			}
			if st.ncols >= 0 && col >= st.ncols {
				return fail(&ParseError{File: p.name, Line: n,
					Msg: fmt.Sprintf("more than %d columns (as on line %d)", st.ncols, st.line)})
			}
			field := f
			if p.trim {
				field = trimSpace(f)
			}
			v, msg := parseFinite(field)
			if msg != "" {
				if msg == "empty" {
					msg = "empty field"
				}
				kind := ""
				if col == p.label {
					kind = " (label)"
				}
				return fail(&ParseError{File: p.name, Line: n,
					Field: fmt.Sprintf("column %d%s %s", col+1, kind, quote(f)), Msg: msg})
			}
			if col == p.label {
				part.labels = append(part.labels, v)
			} else {
				part.x = append(part.x, v)
			}
			if i < 0 {
				break
			}
		}
		col++
		if st.ncols < 0 {
			st = csvState{ncols: col, line: n}
			if p.label >= col {
				return fail(&ParseError{File: p.name, Line: n,
					Msg: fmt.Sprintf("label column %d (0-based) but the line has %d columns", p.label, col)})
			}
		} else if col != st.ncols {
			return fail(&ParseError{File: p.name, Line: n,
				Msg: fmt.Sprintf("%d columns, want %d (as on line %d)", col, st.ncols, st.line)})
		}
		part.rows++
	}
	part.st = st
	return part
}
