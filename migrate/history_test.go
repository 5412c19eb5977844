package migrate

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestHistory(t *testing.T) {
	h, err := NewHistory(2)
	must(t, err)
	must(t, h.Record(0, time.Second, 1, 0.5))
	must(t, h.Record(0, 2*time.Second, 2, 0.25))
	must(t, h.Record(1, time.Second, 0.25, -0.125))
	want := []Sample{{2 * time.Second, 2, 0.75}, {time.Second, 0.25, -0.125}}
	if got := h.Final(); !reflect.DeepEqual(got, want) {
		t.Errorf("Final = %v; want %v", got, want)
	}
	var b strings.Builder
	must(t, h.WriteCSV(&b))
	wantCSV := "worker,seconds,passes,contribution\n0,1,1,0.5\n0,2,2,0.75\n1,1,0.25,-0.125\n"
	if b.String() != wantCSV {
		t.Errorf("CSV = %q; want %q", b.String(), wantCSV)
	}
	before := b.String()
	for _, c := range []struct {
		name  string
		call  func() error
		input string
		err   error
	}{
		{"unknown worker", func() error { return h.Record(2, 3*time.Second, 1, 0) }, "w", ErrUnknownWorker},
		{"time going back", func() error { return h.Record(0, time.Second/2, 3, 0) }, "at", ErrInput},
		{"NaN passes", func() error { return h.Record(0, 3*time.Second, math.NaN(), 0) }, "passes", ErrInput},
		{"negative passes", func() error { return h.Record(0, 3*time.Second, -1, 0) }, "passes", ErrInput},
		{"Inf deltaF", func() error { return h.Record(0, 3*time.Second, 3, math.Inf(-1)) }, "deltaF", ErrInput},
	} {
		err := c.call()
		var ie *InputError
		if !errors.As(err, &ie) || ie.Input != c.input || !errors.Is(err, c.err) {
			t.Errorf("%s: %v; want an error naming %s", c.name, err, c.input)
		}
		b.Reset()
		must(t, h.WriteCSV(&b))
		if b.String() != before {
			t.Errorf("%s changed the history", c.name)
		}
	}
	if _, err := NewHistory(-1); !errors.Is(err, ErrInput) {
		t.Errorf("NewHistory(-1) = %v; want ErrInput", err)
	}
}
