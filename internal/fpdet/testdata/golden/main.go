// Command golden prints the reference digests of fpdet's tests: those of
// package math's results over the inputs of internal/cases, and of 2²⁰ draws
// of math/rand/v2's NormFloat64 and ExpFloat64 — on amd64 with AVX and FMA,
// where math.Exp and math.Log are the assembly that fpdet reproduces. Next to
// each it prints fpdet's digest on this machine. Run from the module root:
//
//	go run ./internal/fpdet/testdata/golden
//
// With -exp-bits it prints x and the bits of math.Exp(x) for the first
// Exp inputs instead; diffing that output with and without
// GODEBUG=cpu.fma=off finds an input where amd64's FMA and non-FMA paths
// differ (cases.ExpProbe).
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/internal/fpdet/internal/cases"
)

func main() {
	expBits := flag.Int("exp-bits", 0, "print x and the bits of math.Exp(x) for this many Exp inputs")
	flag.Parse()
	if *expBits > 0 {
		for _, in := range cases.All()[0].Inputs[:*expBits] {
			fmt.Printf("%v %#x\n", in[0], math.Float64bits(math.Exp(in[0])))
		}
		return
	}
	fmt.Printf("GOARCH=%s, math.Exp(%v) = %#x (FMA path: %#x)\n", runtime.GOARCH, cases.ExpProbe,
		math.Float64bits(math.Exp(cases.ExpProbe)), math.Float64bits(cases.ExpProbeFMA))
	fmt.Println("name: math's digest, fpdet's digest")
	for _, c := range cases.All() {
		fmt.Printf("%q: %q, // fpdet %s\n", c.Name, c.Digest(c.Math), c.Digest(c.Fpdet))
	}
	for _, d := range []struct {
		name     string
		std, det func(*rand.Rand) float64
	}{
		{"NormFloat64", (*rand.Rand).NormFloat64, fpdet.NormFloat64},
		{"ExpFloat64", (*rand.Rand).ExpFloat64, fpdet.ExpFloat64},
	} {
		fmt.Printf("%s: %s, // fpdet %s\n", d.name, draws(d.std), draws(d.det))
	}
}

func draws(f func(*rand.Rand) float64) string {
	r := rand.New(rand.NewPCG(1, 2))
	h := sha256.New()
	var buf [8]byte
	for range 1 << 20 {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(f(r)))
		h.Write(buf[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}
