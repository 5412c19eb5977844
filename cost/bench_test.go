package cost

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkBillAt bills an MLLess deployment whose workers each ran ten
// lifetimes, per-100-ms functions and a spot trace of 1000 steps.
func BenchmarkBillAt(b *testing.B) {
	pts := make([]Point, 1000)
	for i := range pts {
		pts[i] = Point{At: time.Duration(i) * time.Minute, PerHour: 0.1 + float64(i%7)/100}
	}
	tr, err := NewTrace(pts)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []int{12, 48, 384} {
		b.Run(fmt.Sprintf("workers=%d", p), func(b *testing.B) {
			rs, _ := MLLess(p, Options{})
			var l Ledger
			if err := l.Add(rs...); err != nil {
				b.Fatal(err)
			}
			if err := l.Add(Resource{Name: "spot", Kind: Spot, Trace: tr, Billing: PerSecond()}); err != nil {
				b.Fatal(err)
			}
			for _, r := range l.Resources() {
				for k := range 10 {
					start := time.Duration(k) * 100 * time.Minute
					if err := l.Record(r.Name, start, start+90*time.Minute+time.Duration(k)*time.Millisecond); err != nil {
						b.Fatal(err)
					}
				}
			}
			for b.Loop() {
				if _, err := l.BillAt(500 * time.Minute); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
