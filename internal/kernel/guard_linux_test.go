//go:build linux

package kernel

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"
)

// guarded returns a slice of n elements of size sz ending exactly at a page
// that is mapped PROT_NONE, so any read or write past the end faults.
func guarded(t *testing.T, n, sz int) unsafe.Pointer {
	t.Helper()
	page := syscall.Getpagesize()
	data := (n*sz + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, data+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	if err := syscall.Mprotect(mem[data:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	return unsafe.Pointer(&mem[data-n*sz])
}

func guarded64(t *testing.T, r *rand.Rand, n int) []float64 {
	s := unsafe.Slice((*float64)(guarded(t, n+1, 8)), n+1)[1:] // +1: never empty mapping
	for i := range s {
		s[i] = r.NormFloat64()
	}
	return s
}

func guarded32(t *testing.T, r *rand.Rand, n int) []float32 {
	s := unsafe.Slice((*float32)(guarded(t, n+1, 4)), n+1)[1:]
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

// TestNoOverread runs every kernel on data that ends at an unmapped page:
// the masked tail loads must not touch memory past the slices.
func TestNoOverread(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 22))
		for n := 1; n <= 40; n++ {
			x, y := guarded64(t, r, n), guarded64(t, r, n)
			Dot(x, y)
			SqDist(x, y)
			Axpy(0.5, x, y)
			Scale(0.5, y)
			Add(x, y)
			x32, y32 := guarded32(t, r, n), guarded32(t, r, n)
			Dot32(x32, y32)
			SqDist32(x32, y32)
			Axpy32(0.5, x32, y32)
			Scale32(0.5, y32)
			Add32(x32, y32)
			AddTo64(x32, y)
			AxpyTo64(-0.5, x32, y)
		}
		for _, k := range []int{1, 3, 5, 7, 10} {
			for d := 1; d <= 19; d++ {
				for _, n := range []int{1, 2, 3} {
					X, C, B, out := guarded64(t, r, n*d), guarded64(t, r, k*d), guarded64(t, r, k*d), guarded64(t, r, n*k)
					DotsNT(X, n, C, k, d, out)
					DotsNT2(X, n, C, B, k, d, out)
					X32, C32, out32 := guarded32(t, r, n*d), guarded32(t, r, k*d), guarded32(t, r, n*k)
					DotsNT32(X32, n, C32, k, d, out32)
				}
			}
		}
	})
}
