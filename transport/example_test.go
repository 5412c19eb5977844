package transport_test

import (
	"errors"
	"fmt"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
)

// A worker's commit, encoded and decoded: the receiver validates the bytes
// against the layout it expects, and any damage is an error that says
// where.
func Example() {
	l := algorithms.Layout{Params: 4, Delta: 4}
	d := algorithms.NewDelta(l)
	d.Vec[1], d.Count = 0.5, 32
	m := &transport.Message{
		Kind: transport.Commit, From: 2, To: transport.Coordinator,
		Job: 7, Incarnation: 1, Seq: 12, Version: 3, Clock: 3, Points: 32, Delta: d,
	}
	b, err := m.AppendBinary(nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("encoded", len(b), "bytes; Size", m.Size())

	got, err := transport.Unmarshal(b, l)
	if err != nil {
		panic(err)
	}
	fmt.Println(got)
	fmt.Println("delta", got.Delta.Vec, "count", got.Delta.Count)

	_, err = transport.Unmarshal(b[:len(b)-3], l)
	fmt.Println(errors.Is(err, transport.ErrMalformed), err)
	_, err = transport.Unmarshal(b, algorithms.Layout{Params: 4, Delta: 5})
	fmt.Println(errors.Is(err, algorithms.ErrLayout), err)
	// Output:
	// encoded 29 bytes; Size 29
	// commit worker 2→coordinator job=7 inc=1 seq=12 v=3 clock=3 points=32 delta=4/count=32
	// delta [0 0.5 0 0] count 32
	// true transport: decode: delta at byte 14: filter: decode: truncated at byte 7 reading 1 values of 8 bytes, have 5 bytes: filter: malformed encoding: transport: malformed message
	// true transport: decode: delta at byte 14: filter: decode: delta dim 4 block 0, want dim 5 block 0: algorithms: layout mismatch
}
