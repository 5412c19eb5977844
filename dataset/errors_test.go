package dataset

import (
	"errors"
	"io"
	"testing"
)

func TestParseErrorMessage(t *testing.T) {
	tests := []struct {
		e    ParseError
		want string
	}{
		{ParseError{File: "train.csv", Line: 17, Field: `column 3 "abc"`, Msg: "not a number"},
			`dataset: train.csv:17: column 3 "abc": not a number`},
		{ParseError{File: "t.gz", Record: 5, Msg: "truncated"}, "dataset: t.gz: record 5: truncated"},
		{ParseError{File: "t.gz", Field: "header", Msg: "bad magic"}, "dataset: t.gz: header: bad magic"},
		{ParseError{File: "t.gz", Line: 3, Err: io.ErrUnexpectedEOF}, "dataset: t.gz:3: unexpected EOF"},
		{ParseError{File: "t.gz", Msg: "reading", Err: io.ErrUnexpectedEOF}, "dataset: t.gz: reading: unexpected EOF"},
		{ParseError{Msg: "empty"}, "dataset: <input>: empty"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q; want %q", tt.e, got, tt.want)
		}
	}
}

func TestParseErrorUnwrap(t *testing.T) {
	var err error = &ParseError{File: "f", Err: io.ErrUnexpectedEOF}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("errors.Is(%v, io.ErrUnexpectedEOF) = false; want true", err)
	}
}

func TestQuoteTruncates(t *testing.T) {
	long := make([]byte, 1000)
	for i := range long {
		long[i] = 'x'
	}
	if got := quote(long); len(got) > maxQuoted+10 {
		t.Errorf("quote(1000 bytes) has length %d; want at most %d", len(got), maxQuoted+10)
	}
}
