// Package fpdet holds the floating-point functions that give the same bits
// on every architecture — amd64 (with or without the assembly and FMA),
// 386, arm64 and the other targets Go supports — so that a seed gives the
// same table, report and JSON everywhere (issue #15):
//
//	Exp, Exp2, Expm1, Log, Log2, Log1p, Pow, Hypot, Erfc, Erfinv
//	NormFloat64(r), ExpFloat64(r)   normal and exponential draws from a *rand.Rand
//
// # Why
//
// Two things make Go's float64 results differ between architectures:
//
//   - package math has assembly for some functions on some targets: Exp on
//     amd64 (Shibata's SLEEF method, with a separate path for CPUs with
//     FMA) and arm64 (fdlibm with fused multiply-adds), Log on amd64,
//     Hypot on amd64 and 386, Exp2 on arm64, many on s390x. Each gives
//     correctly rounded results most of the time and differs in the last
//     bit elsewhere: amd64's Exp with and without FMA differ on about 9%
//     of inputs, so even two amd64 machines disagree. math/rand/v2's
//     NormFloat64 and ExpFloat64 call math.Exp and math.Log;
//   - the Go compiler fuses x*y + z into one fused multiply-add (FMA),
//     which rounds once instead of twice, on arm64, ppc64, s390x, riscv64
//     and on amd64 built with GOAMD64=v3, wherever the SSA sees a product
//     feeding an addition: in one expression, across statements, through
//     variables, and through the results and arguments of inlined calls
//     (the Go spec allows this: "An implementation may combine multiple
//     floating-point operations into a single fused operation, possibly
//     across statements"). So math's pure-Go functions (Log, Log1p, Pow, …)
//     and every numeric loop of this module round differently on arm64.
//     An explicit conversion, float64(x*y) + z, forbids the fusion (the
//     spec: "An explicit floating-point type conversion rounds to the
//     precision of the target type, preventing fusion").
//
// The functions here are pure Go, ported from Go's math package (BSD
// licence, LICENSE-GO; fdlibm and SLEEF underneath, as each file says),
// with every product that feeds an addition converted, and every intended
// fused multiply-add written as math.FMA, which is exact (one rounding) on
// every target, in hardware or in software. They reproduce amd64's math
// bit for bit: Exp is the FMA path of exp_amd64.s (what math.Exp runs on
// x86 CPUs with AVX and FMA), Log the operation order of log_amd64.s,
// the rest math's pure-Go code over these two. So results computed on
// amd64 before this package existed are unchanged. The one intended
// difference: Log of a subnormal number, which amd64's assembly gets
// wrong (it reads the exponent field as if the number were normal).
//
// # Keeping it so
//
// Two tests of this package read the whole module (go list ./..., every
// non-test file, type-checked) and fail naming file and line:
//
//   - TestNoArchDependentCalls: a call of a math function other than the
//     exactly rounded ones (Sqrt, Abs, Floor, FMA, Ldexp, …) or of rand's
//     NormFloat64/ExpFloat64 outside this package;
//   - TestNoFusableMultiplyAdd: a float product, or a variable, field or
//     element assigned one, used where the compiler may fuse it: an operand
//     of + or -, the right side of += or -=, a return value, an argument
//     of a call into this module, a composite-literal element, a channel
//     send, ++/--. x/c for a constant power of two c counts as a product
//     (the compiler makes it x*(1/c)). A product that is exact, such as a
//     product of two float32 in float64, may be marked with a comment
//     "fpdet:exact" and a reason on its line. go test
//     ./internal/fpdet -run TestNoFusableMultiplyAdd -args -fix writes the
//     conversions itself.
//
// The rules were checked against the compiler: every fused instruction
// (FMADDD, FMSUBD, FNMADDD, FNMSUBD and their S forms) in an arm64 build of
// the module (go build -gcflags=-S) came from a place the guard flags or a
// math.FMA call. TestGoldenDigests checks this package's results, on
// whatever architecture the test runs, against digests of amd64's math
// (testdata/golden prints them); .ci/run runs the whole CLI on 386 and,
// under qemu-user-static, arm64 and compares with amd64 (testdata/xarch
// at the module root).
//
// # Cost
//
// On amd64, Exp costs about what math.Exp does (its FMAs are math.FMA
// calls, one instruction behind a CPU-feature test), Log and Log1p about
// what math's do; see bench_test.go. On targets without FMA hardware (386,
// x86 CPUs without FMA) math.FMA is a software routine and Exp is several
// times slower than math.Exp there.
package fpdet
