package fpdet_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/internal/fpdet/internal/cases"
)

// The input sets and their digests live in internal/cases, shared with
// testdata/golden, the program that records the digests from package
// math on amd64.

// goldenDigests are the sha256 digests of math's results over cases.All
// on amd64 with AVX and FMA (Go 1.26), printed by
// `go run ./internal/fpdet/testdata/golden` on such a machine. fpdet must
// give exactly these bits on every architecture.
var goldenDigests = map[string]string{
	"Exp":    "64108959f9252a0ec664e6220b9323452483ce689ca82d2dac0701b77d7c4df6",
	"Log":    "c7d828c8e85443710e41da522262601ebba56187e8bb76d3e115d759121c0d17",
	"Log2":   "bc54d6a932a0d6d05379b40dd2794d877f7c4cafb705f55fe7f3367a8b167231",
	"Log1p":  "7d3f713cada8b8b9b0f1804976360539c80acb75d4cd0e741d1178433c957a3a",
	"Exp2":   "86b1e4ec447133d66b70951470cd2faaccc4e98904b2378386942685c51180cc",
	"Expm1":  "71eef8e10f7c03e011f22a161a926ef7999d6b25e9505f550058f9f0ef48c9fd",
	"Pow":    "57385876fbbf29284c4776fe82f5cccc1b051f9b0d5bdab88c119aaab9a6a6f6",
	"Hypot":  "660ba0d485f4efdf68e353d9540a2453801f65c9f25ffa6fd95d48acab87abea",
	"Erfc":   "52b5b9732659ccbcf96255913e73c22b97fdec1468724c671f94e3dca9b9c60f",
	"Erfinv": "f2e5fcb5ee51f6a699c164a98b4bec7cb20a28051197bee8357e46e7b0bbdb32",
}

func TestGoldenDigests(t *testing.T) {
	for _, c := range cases.All() {
		got := c.Digest(c.Fpdet)
		want, ok := goldenDigests[c.Name]
		if !ok {
			t.Errorf("%s: no golden digest (fpdet gives %s)", c.Name, got)
			continue
		}
		if got != want {
			t.Errorf("%s on %s: digest %s, want %s (amd64's math.%s)", c.Name, runtime.GOARCH, got, want, c.Name)
		}
	}
}

// amd64FMA reports whether math.Exp takes the FMA path of exp_amd64.s on
// this machine: amd64, a CPU with AVX and FMA, and no GODEBUG=cpu.fma=off.
// The probe is an input where the FMA and non-FMA paths differ in the last
// bit (found by running the cases with and without GODEBUG=cpu.fma=off).
func amd64FMA() bool {
	return runtime.GOARCH == "amd64" && math.Exp(cases.ExpProbe) == cases.ExpProbeFMA
}

// TestMatchesMath compares, input by input, with package math where math
// itself is the reference (amd64 with FMA); it names the first inputs that
// differ. Elsewhere TestGoldenDigests checks the same bits.
func TestMatchesMath(t *testing.T) {
	if !amd64FMA() {
		t.Skipf("math.Exp is not amd64's FMA path here (GOARCH=%s, or a CPU without FMA): TestGoldenDigests checks the bits", runtime.GOARCH)
	}
	for _, c := range cases.All() {
		bad := 0
		for _, in := range c.Inputs {
			want, got := c.Math(in), c.Fpdet(in)
			if math.Float64bits(want) != math.Float64bits(got) && !(math.IsNaN(want) && math.IsNaN(got)) {
				if bad < 5 {
					t.Errorf("%s%v = %v (%#x); math gives %v (%#x)", c.Name, in, got, math.Float64bits(got), want, math.Float64bits(want))
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d inputs differ from math", c.Name, bad, len(c.Inputs))
		}
	}
}

// Subnormal x: amd64's math.Log assembly reads their exponent field as if
// they were normal; Log normalizes them. Check against Log(x·2⁵²) − 52·ln2.
func TestLogSubnormal(t *testing.T) {
	for _, x := range []float64{5e-324, 1e-320, 2.2250738585072009e-308, 1e-310, 3.7e-315} {
		got := fpdet.Log(x)
		want := fpdet.Log(x*(1<<52)) - 52*math.Ln2
		if math.Abs(got-want) > 1e-15*math.Abs(want) {
			t.Errorf("Log(%g) = %v, want %v", x, got, want)
		}
	}
}

// The ziggurat draws equal math/rand/v2's on amd64 (where its math.Exp and
// math.Log are the same as fpdet's), draw for draw, and consume the same
// stream; elsewhere their digest is checked against amd64's.
func TestRandDraws(t *testing.T) {
	const n = 1 << 20
	for _, d := range []struct {
		name string
		std  func(*rand.Rand) float64
		det  func(*rand.Rand) float64
		want string
	}{
		{"NormFloat64", (*rand.Rand).NormFloat64, fpdet.NormFloat64, cases.NormDigest},
		{"ExpFloat64", (*rand.Rand).ExpFloat64, fpdet.ExpFloat64, cases.ExpDigest},
	} {
		a, b := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
		h := sha256.New()
		var buf [8]byte
		bad := 0
		for i := range n {
			x := d.det(a)
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
			h.Write(buf[:])
			if amd64FMA() {
				if y := d.std(b); math.Float64bits(x) != math.Float64bits(y) {
					if bad < 5 {
						t.Errorf("%s draw %d = %v, math/rand/v2 gives %v", d.name, i, x, y)
					}
					bad++
				}
			}
		}
		if amd64FMA() && a.Uint64() != b.Uint64() {
			t.Errorf("%s: the streams went out of step", d.name)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != d.want {
			t.Errorf("%s on %s: digest of %d draws %s, want %s", d.name, runtime.GOARCH, n, got, d.want)
		}
	}
}
