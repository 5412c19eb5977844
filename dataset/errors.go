package dataset

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseError reports malformed input found by a loader. Every loader error
// caused by bad data is a *ParseError; use errors.As to get at the fields.
//
// Its message reads like
//
//	dataset: train.csv:17: column 3 "abc": not a number
//	dataset: train-images-idx3-ubyte.gz: record 5: truncated: ...
type ParseError struct {
	File   string // file name, or the name given to a Parse function
	Line   int    // 1-based line number for text formats; 0 if not applicable
	Record int    // 1-based record (image or label) number for IDX files; 0 if not applicable
	Field  string // the offending field with its value, e.g. `column 3 "abc"`; may be empty
	Msg    string // what is wrong, e.g. "not a number"; may be empty when Err says it
	Err    error  // underlying cause (an I/O or decompression error), or nil
}

// Error formats the error as "dataset: file:line: field: msg: err", leaving
// out the parts that are empty or zero.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString("dataset: ")
	name := e.File
	if name == "" {
		name = "<input>"
	}
	b.WriteString(name)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	if e.Record > 0 {
		b.WriteString(": record ")
		b.WriteString(strconv.Itoa(e.Record))
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause, if any.
func (e *ParseError) Unwrap() error { return e.Err }

// maxQuoted bounds how much of a bad field is copied into an error message.
const maxQuoted = 40

// quote returns b quoted with %q, shortened to maxQuoted bytes.
func quote(b []byte) string {
	if len(b) > maxQuoted {
		return fmt.Sprintf("%q...", b[:maxQuoted])
	}
	return fmt.Sprintf("%q", b)
}
