package transporttest_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/transporttest"
)

// Random valid messages of every kind survive an encoding round trip;
// Diff reports what a transport changed. A transport's own test runs the
// whole suite:
//
//	func TestConformance(t *testing.T) {
//		transporttest.Run(t, func(t *testing.T, o transporttest.Options) transport.Transport {
//			n, err := inproc.New(inproc.Config{Layout: o.Layout, MaxMessage: o.MaxMessage})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return n
//		})
//	}
func ExampleDiff() {
	l := algorithms.Layout{Params: 8, Delta: 30, Block: 5}
	rng := rand.New(rand.NewPCG(1, 2))
	same := 0
	for _, k := range transport.Kinds() {
		m := transporttest.RandomMessage(rng, l, k)
		b, err := m.AppendBinary(nil)
		if err != nil {
			panic(err)
		}
		got, err := transport.Unmarshal(b, l)
		if err != nil {
			panic(err)
		}
		if transporttest.Diff(m, got) == "" {
			same++
		}
	}
	fmt.Println(same, "of", len(transport.Kinds()), "kinds round-trip")

	a := &transport.Message{Kind: transport.Ack, Seq: 4}
	b := &transport.Message{Kind: transport.Ack, Seq: 5}
	fmt.Println(transporttest.Diff(a, b) != "")
	// Output:
	// 11 of 11 kinds round-trip
	// true
}
