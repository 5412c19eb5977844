//go:build ignore

// asm_gen.go writes kernel_amd64.s, the AVX2+FMA kernels of package kernel.
//
//	go generate ./internal/kernel   (or: cd internal/kernel && go run asm_gen.go)
//
// The register-blocked DotsNT kernels come in many shapes (rows × centroids,
// float64/float32, one or two coefficient matrices); writing them by hand
// would be error-prone, so they are emitted from one template here.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"strings"
)

var buf bytes.Buffer

func p(f string, a ...any) { fmt.Fprintf(&buf, "\t"+f+"\n", a...) }
func lbl(s string)         { fmt.Fprintf(&buf, "%s:\n", s) }
func raw(s string)         { buf.WriteString(s) }

// elem describes one floating-point storage type.
type elem struct {
	bits   int    // 64 or 32
	size   int    // bytes per element
	lanes  int    // elements per ymm register
	shift  int    // log2(size)
	pk     string // packed suffix: PD / PS
	sc     string // scalar suffix: SD / SS
	goType string
}

var (
	f64 = elem{64, 8, 4, 3, "PD", "SD", "float64"}
	f32 = elem{32, 4, 8, 2, "PS", "SS", "float32"}
)

func y(i int) string { return fmt.Sprintf("Y%d", i) }
func x(i int) string { return fmt.Sprintf("X%d", i) }

// loadMask loads into ymask the lane mask selecting the first cnt elements
// (0 < cnt < lanes) from maskTab<>; cnt is clobbered, tmp receives an address.
func loadMask(e elem, cnt, tmp, ymask string) {
	p("LEAQ maskTab<>+32(SB), %s", tmp)
	p("SHLQ $%d, %s", e.shift, cnt)
	p("SUBQ %s, %s", cnt, tmp)
	p("VMOVDQU (%s), %s", tmp, ymask)
}

// reduce1 leaves the horizontal sum of ymm a in the low lane of xmm a.
func reduce1(e elem, a, t int) {
	p("VEXTRACTF128 $1, %s, %s", y(a), x(t))
	p("VADD%s %s, %s, %s", e.pk, x(t), x(a), x(a))
	p("VHADD%s %s, %s, %s", e.pk, x(a), x(a), x(a))
	if e.bits == 32 {
		p("VHADD%s %s, %s, %s", e.pk, x(a), x(a), x(a))
	}
}

// storeSums adds the horizontal sums of the ymm registers accs[0..] to
// consecutive elements at addr(0), addr(size), ...
func storeSums(e elem, accs []int, addr func(off int) string, t int) {
	j := 0
	for len(accs)-j >= 4 {
		a, b, c, d := accs[j], accs[j+1], accs[j+2], accs[j+3]
		if e.bits == 64 {
			p("VHADDPD %s, %s, %s", y(b), y(a), y(a))
			p("VHADDPD %s, %s, %s", y(d), y(c), y(c))
			p("VPERM2F128 $0x20, %s, %s, %s", y(c), y(a), y(b))
			p("VPERM2F128 $0x31, %s, %s, %s", y(c), y(a), y(d))
			p("VADDPD %s, %s, %s", y(d), y(b), y(b))
			p("VADDPD %s, %s, %s", addr(j*e.size), y(b), y(b))
			p("VMOVUPD %s, %s", y(b), addr(j*e.size))
		} else {
			p("VHADDPS %s, %s, %s", y(b), y(a), y(a))
			p("VHADDPS %s, %s, %s", y(d), y(c), y(c))
			p("VHADDPS %s, %s, %s", y(c), y(a), y(a))
			p("VEXTRACTF128 $1, %s, %s", y(a), x(t))
			p("VADDPS %s, %s, %s", x(t), x(a), x(a))
			p("VADDPS %s, %s, %s", addr(j*e.size), x(a), x(a))
			p("VMOVUPS %s, %s", x(a), addr(j*e.size))
		}
		j += 4
	}
	if len(accs)-j >= 2 {
		a, b := accs[j], accs[j+1]
		if e.bits == 64 {
			p("VHADDPD %s, %s, %s", y(b), y(a), y(a))
			p("VEXTRACTF128 $1, %s, %s", y(a), x(t))
			p("VADDPD %s, %s, %s", x(t), x(a), x(a))
			p("VADDPD %s, %s, %s", addr(j*e.size), x(a), x(a))
			p("VMOVUPD %s, %s", x(a), addr(j*e.size))
		} else {
			p("VHADDPS %s, %s, %s", y(b), y(a), y(a))
			p("VEXTRACTF128 $1, %s, %s", y(a), x(t))
			p("VADDPS %s, %s, %s", x(t), x(a), x(a))
			p("VHADDPS %s, %s, %s", x(a), x(a), x(a))
			p("VMOVSD %s, %s", addr(j*e.size), x(t)) // two float32 lanes
			p("VADDPS %s, %s, %s", x(t), x(a), x(a))
			p("VMOVSD %s, %s", x(a), addr(j*e.size))
		}
		j += 2
	}
	if j < len(accs) {
		a := accs[j]
		reduce1(e, a, t)
		p("VADD%s %s, %s, %s", e.sc, addr(j*e.size), x(a), x(a))
		p("VMOV%s %s, %s", e.sc, x(a), addr(j*e.size))
	}
}

func off(o int, base string) string {
	if o == 0 {
		return "(" + base + ")"
	}
	return fmt.Sprintf("%d(%s)", o, base)
}

// ---------------------------------------------------------------------------
// Level-1 kernels.

// genDot emits dot (sq=false) or squared distance (sq=true):
// func name(x, y *T, n int) T
func genDot(e elem, name string, sq bool) {
	v := e.lanes
	what := "x·y"
	if sq {
		what = "‖x−y‖²"
	}
	raw(fmt.Sprintf("\n// func %s(x, y *%s, n int) %s\n// returns %s over n elements.\n", name, e.goType, e.goType, what))
	raw(fmt.Sprintf("TEXT ·%s(SB), NOSPLIT, $0-%d\n", name, 24+e.size))
	p("MOVQ x+0(FP), SI")
	p("MOVQ y+8(FP), DI")
	p("MOVQ n+16(FP), CX")
	for i := 0; i < 4; i++ {
		p("VXORPS %s, %s, %s", y(i), y(i), y(i))
	}
	step := func(o int, acc, t int) {
		p("VMOVU%s %s, %s", e.pk, off(o, "SI"), y(t))
		if sq {
			p("VSUB%s %s, %s, %s", e.pk, off(o, "DI"), y(t), y(t))
			p("VFMADD231%s %s, %s, %s", e.pk, y(t), y(t), y(acc))
		} else {
			p("VFMADD231%s %s, %s, %s", e.pk, off(o, "DI"), y(t), y(acc))
		}
	}
	p("SUBQ $%d, CX", 4*v)
	p("JL tail")
	lbl("loop")
	for i := 0; i < 4; i++ {
		step(32*i, i, 4+i)
	}
	p("ADDQ $128, SI")
	p("ADDQ $128, DI")
	p("SUBQ $%d, CX", 4*v)
	p("JGE loop")
	lbl("tail")
	p("ADDQ $%d, CX", 4*v)
	lbl("tail1")
	p("CMPQ CX, $%d", v)
	p("JL masked")
	step(0, 0, 4)
	p("ADDQ $32, SI")
	p("ADDQ $32, DI")
	p("SUBQ $%d, CX", v)
	p("JMP tail1")
	lbl("masked")
	p("TESTQ CX, CX")
	p("JE reduce")
	loadMask(e, "CX", "AX", "Y8")
	p("VMASKMOV%s (SI), Y8, Y4", e.pk)
	p("VMASKMOV%s (DI), Y8, Y5", e.pk)
	if sq {
		p("VSUB%s Y5, Y4, Y4", e.pk)
		p("VFMADD231%s Y4, Y4, Y1", e.pk)
	} else {
		p("VFMADD231%s Y5, Y4, Y1", e.pk)
	}
	lbl("reduce")
	p("VADD%s Y1, Y0, Y0", e.pk)
	p("VADD%s Y3, Y2, Y2", e.pk)
	p("VADD%s Y2, Y0, Y0", e.pk)
	reduce1(e, 0, 1)
	p("VMOV%s X0, ret+24(FP)", e.sc)
	p("VZEROUPPER")
	p("RET")
}

// genMap emits an element-wise update loop over n elements.
//
//	kind "axpy":  func name(a T, x, y *T, n int)   y += a·x
//	kind "scale": func name(a T, x *T, n int)      x *= a
//	kind "add":   func name(x, y *T, n int)        y += x
func genMap(e elem, name, kind string) {
	v := e.lanes
	var args string
	var frame int
	switch kind {
	case "axpy":
		args, frame = fmt.Sprintf("a %s, x, y *%s, n int", e.goType, e.goType), 32
	case "scale":
		args, frame = fmt.Sprintf("a %s, x *%s, n int", e.goType, e.goType), 24
	case "add":
		args, frame = fmt.Sprintf("x, y *%s, n int", e.goType), 24
	}
	raw(fmt.Sprintf("\n// func %s(%s)\nTEXT ·%s(SB), NOSPLIT, $0-%d\n", name, args, name, frame))
	switch kind {
	case "axpy":
		p("VBROADCASTS%s a+0(FP), Y0", e.sc[1:])
		p("MOVQ x+8(FP), SI")
		p("MOVQ y+16(FP), DI")
		p("MOVQ n+24(FP), CX")
	case "scale":
		p("VBROADCASTS%s a+0(FP), Y0", e.sc[1:])
		p("MOVQ x+8(FP), DI")
		p("MOVQ n+16(FP), CX")
	case "add":
		p("MOVQ x+0(FP), SI")
		p("MOVQ y+8(FP), DI")
		p("MOVQ n+16(FP), CX")
	}
	vec := func(o, r int) { // computes into Y(r) the new value at o(DI)
		switch kind {
		case "axpy":
			p("VMOVU%s %s, %s", e.pk, off(o, "DI"), y(r))
			p("VFMADD231%s %s, Y0, %s", e.pk, off(o, "SI"), y(r))
		case "scale":
			p("VMUL%s %s, Y0, %s", e.pk, off(o, "DI"), y(r))
		case "add":
			p("VMOVU%s %s, %s", e.pk, off(o, "SI"), y(r))
			p("VADD%s %s, %s, %s", e.pk, off(o, "DI"), y(r), y(r))
		}
	}
	adv := func(b int) {
		if kind != "scale" {
			p("ADDQ $%d, SI", b)
		}
		p("ADDQ $%d, DI", b)
	}
	p("SUBQ $%d, CX", 4*v)
	p("JL tail")
	lbl("loop")
	for i := 0; i < 4; i++ {
		vec(32*i, 1+i)
	}
	for i := 0; i < 4; i++ {
		p("VMOVU%s %s, %s", e.pk, y(1+i), off(32*i, "DI"))
	}
	adv(128)
	p("SUBQ $%d, CX", 4*v)
	p("JGE loop")
	lbl("tail")
	p("ADDQ $%d, CX", 4*v)
	lbl("tail1")
	p("CMPQ CX, $%d", v)
	p("JL scalar")
	vec(0, 1)
	p("VMOVU%s Y1, (DI)", e.pk)
	adv(32)
	p("SUBQ $%d, CX", v)
	p("JMP tail1")
	lbl("scalar")
	p("TESTQ CX, CX")
	p("JE done")
	lbl("scalar1")
	switch kind {
	case "axpy":
		p("VMOV%s (DI), X1", e.sc)
		p("VFMADD231%s (SI), X0, X1", e.sc)
	case "scale":
		p("VMUL%s (DI), X0, X1", e.sc)
	case "add":
		p("VMOV%s (SI), X1", e.sc)
		p("VADD%s (DI), X1, X1", e.sc)
	}
	p("VMOV%s X1, (DI)", e.sc)
	adv(e.size)
	p("DECQ CX")
	p("JNE scalar1")
	lbl("done")
	p("VZEROUPPER")
	p("RET")
}

// genTo64 emits the float32→float64 updates
//
//	func addTo64AVX2(x *float32, y *float64, n int)             y += float64(x)
//	func axpyTo64AVX2(a float64, x *float32, y *float64, n int) y += a·float64(x)
//
// (the conversion is exact; axpy rounds once, by FMA).
func genTo64(axpy bool) {
	if axpy {
		raw("\n// func axpyTo64AVX2(a float64, x *float32, y *float64, n int)\nTEXT ·axpyTo64AVX2(SB), NOSPLIT, $0-32\n")
		p("VBROADCASTSD a+0(FP), Y15")
		p("MOVQ x+8(FP), SI")
		p("MOVQ y+16(FP), DI")
		p("MOVQ n+24(FP), CX")
	} else {
		raw("\n// func addTo64AVX2(x *float32, y *float64, n int)\nTEXT ·addTo64AVX2(SB), NOSPLIT, $0-24\n")
		p("MOVQ x+0(FP), SI")
		p("MOVQ y+8(FP), DI")
		p("MOVQ n+16(FP), CX")
	}
	vec := func(o, r int) { // new value of the 4 doubles at 2·o(DI) into Y(r)
		p("VCVTPS2PD %s, %s", off(o, "SI"), y(r))
		if axpy {
			p("VFMADD213PD %s, Y15, %s", off(2*o, "DI"), y(r))
		} else {
			p("VADDPD %s, %s, %s", off(2*o, "DI"), y(r), y(r))
		}
	}
	p("SUBQ $16, CX")
	p("JL tail")
	lbl("loop")
	for i := 0; i < 4; i++ {
		vec(16*i, i)
	}
	for i := 0; i < 4; i++ {
		p("VMOVUPD %s, %s", y(i), off(32*i, "DI"))
	}
	p("ADDQ $64, SI")
	p("ADDQ $128, DI")
	p("SUBQ $16, CX")
	p("JGE loop")
	lbl("tail")
	p("ADDQ $16, CX")
	lbl("tail1")
	p("CMPQ CX, $4")
	p("JL scalar")
	vec(0, 0)
	p("VMOVUPD Y0, (DI)")
	p("ADDQ $16, SI")
	p("ADDQ $32, DI")
	p("SUBQ $4, CX")
	p("JMP tail1")
	lbl("scalar")
	p("TESTQ CX, CX")
	p("JE done")
	lbl("scalar1")
	p("VCVTSS2SD (SI), X0, X0")
	if axpy {
		p("VFMADD213SD (DI), X15, X0")
	} else {
		p("VADDSD (DI), X0, X0")
	}
	p("VMOVSD X0, (DI)")
	p("ADDQ $4, SI")
	p("ADDQ $8, DI")
	p("DECQ CX")
	p("JNE scalar1")
	lbl("done")
	p("VZEROUPPER")
	p("RET")
}

// ---------------------------------------------------------------------------
// Register-blocked DotsNT kernels.
//
// two == false:
//   func name(x *T, ldx int, c *T, ldc int, d int, out *T, ldo int, pf uintptr)
//   out[i*ldo+j] += Σ_t x[i*ldx+t]·c[j*ldc+t]         i < r, j < nc, t < d
// two == true:
//   func name(x *T, ldx int, a, b *T, ldc int, d int, out *T, ldo int, pf uintptr)
//   out[i*ldo+j] += Σ_t x²·a[j*ldc+t] + x·b[j*ldc+t]   (x = x[i*ldx+t])
//
// The kernels accumulate into out, so the caller can split d into chunks
// whose slice of C stays in L1. The main loop advances 64 bytes per row per
// iteration; two-row kernels then issue one PREFETCHT0 for each of rows
// pfRows and pfRows+1 further down (the next call's x data) and one for the
// cursor pf, which is advanced by 64 per iteration: the driver points it at
// the next block of rows, so that block is fetched as one sequential stream
// (which also trains the hardware prefetchers) while this one is computed.
// Prefetches never fault, so the addresses need not be valid.
//
// Registers: SI x row 0, R8 ldx bytes (row 1 = (SI)(R8*1)); DI c (or a),
// DX b, R9 ldc bytes, R10 3·ldc bytes; CX remaining d; AX out, R11 ldo bytes;
// R12 (pfRows+1)·ldx bytes; R13 pf; BX mask address.
// Y0..Y(r·nc−1) accumulators (acc[i][j] = Y(i·nc+j)), Y10/Y11 x rows,
// Y12/Y13 temporaries or x² rows, Y14/Y15 temporaries / tail mask.
// Tails (d mod 4 or 8 elements) are one VMASKMOV step: masked-off lanes read
// as zero and are never accessed, so no load goes past the rows.

func cAddr(base string, j, o int) string {
	os := ""
	if o != 0 {
		os = fmt.Sprint(o)
	}
	switch j {
	case 0:
		return os + "(" + base + ")"
	case 1:
		return os + "(" + base + ")(R9*1)"
	case 2:
		return os + "(" + base + ")(R9*2)"
	case 3:
		return os + "(" + base + ")(R10*1)"
	case 4:
		return os + "(" + base + ")(R9*4)"
	}
	panic("column")
}

func xAddr(i, o int) string {
	os := ""
	if o != 0 {
		os = fmt.Sprint(o)
	}
	if i == 0 {
		return os + "(SI)"
	}
	return os + "(SI)(R8*1)"
}

func kernelName(e elem, two bool, r, nc int) string {
	s := "dotsNT"
	if two {
		s = "dotsNT2"
	}
	return fmt.Sprintf("%s%dK%dx%d", s, e.bits, r, nc)
}

func genKernel(e elem, two bool, r, nc int) {
	name := kernelName(e, two, r, nc)
	acc := func(i, j int) int { return i*nc + j }
	if two {
		raw(fmt.Sprintf("\n// func %s(x *%s, ldx int, a, b *%s, ldc int, d int, out *%s, ldo int, pf uintptr)\n", name, e.goType, e.goType, e.goType))
		raw(fmt.Sprintf("TEXT ·%s(SB), NOSPLIT, $0-72\n", name))
		p("MOVQ x+0(FP), SI")
		p("MOVQ ldx+8(FP), R8")
		p("MOVQ a+16(FP), DI")
		p("MOVQ b+24(FP), DX")
		p("MOVQ ldc+32(FP), R9")
		p("MOVQ d+40(FP), CX")
		p("MOVQ out+48(FP), AX")
		p("MOVQ ldo+56(FP), R11")
	} else {
		raw(fmt.Sprintf("\n// func %s(x *%s, ldx int, c *%s, ldc int, d int, out *%s, ldo int, pf uintptr)\n", name, e.goType, e.goType, e.goType))
		raw(fmt.Sprintf("TEXT ·%s(SB), NOSPLIT, $0-64\n", name))
		p("MOVQ x+0(FP), SI")
		p("MOVQ ldx+8(FP), R8")
		p("MOVQ c+16(FP), DI")
		p("MOVQ ldc+24(FP), R9")
		p("MOVQ d+32(FP), CX")
		p("MOVQ out+40(FP), AX")
		p("MOVQ ldo+48(FP), R11")
	}
	p("SHLQ $%d, R8", e.shift)
	p("SHLQ $%d, R9", e.shift)
	p("SHLQ $%d, R11", e.shift)
	if nc > 3 {
		p("LEAQ (R9)(R9*2), R10")
	}
	pf := r == 2 && *pfRows > 0
	if pf {
		switch *pfRows {
		case 2:
			p("LEAQ (R8)(R8*2), R12")
		case 4:
			p("LEAQ (R8)(R8*4), R12")
		default:
			panic("pfRows")
		}
	}
	cur := r == 2 && *pfCursor != ""
	if cur {
		if two {
			p("MOVQ pf+64(FP), R13")
		} else {
			p("MOVQ pf+56(FP), R13")
		}
	}
	for i := 0; i < r*nc; i++ {
		p("VXORPS %s, %s, %s", y(i), y(i), y(i))
	}
	mv := "VMOVU" + e.pk
	fma := "VFMADD231" + e.pk
	// step emits one vector step at byte offset o; masked uses mask register.
	step := func(o int, masked bool) {
		load := func(addr string, dst int, mask int) {
			if masked {
				p("VMASKMOV%s %s, %s, %s", e.pk, addr, y(mask), y(dst))
			} else {
				p("%s %s, %s", mv, addr, y(dst))
			}
		}
		if !two {
			mask := 14
			for i := 0; i < r; i++ {
				load(xAddr(i, o), 10+i, mask)
			}
			for j := 0; j < nc; j++ {
				if r == 1 && !masked {
					p("%s %s, Y10, %s", fma, cAddr("DI", j, o), y(acc(0, j)))
					continue
				}
				t := 12 + j%2
				load(cAddr("DI", j, o), t, mask)
				for i := 0; i < r; i++ {
					p("%s %s, %s, %s", fma, y(t), y(10+i), y(acc(i, j)))
				}
			}
			return
		}
		mask := 15
		for i := 0; i < r; i++ {
			load(xAddr(i, o), 10+i, mask)
			p("VMUL%s %s, %s, %s", e.pk, y(10+i), y(10+i), y(12+i))
		}
		for j := 0; j < nc; j++ {
			if r == 1 && !masked {
				p("%s %s, Y12, %s", fma, cAddr("DI", j, o), y(acc(0, j)))
				p("%s %s, Y10, %s", fma, cAddr("DX", j, o), y(acc(0, j)))
				continue
			}
			ta, tb := 14, 15
			if masked {
				tb = 14
			}
			load(cAddr("DI", j, o), ta, mask)
			for i := 0; i < r; i++ {
				p("%s %s, %s, %s", fma, y(ta), y(12+i), y(acc(i, j)))
			}
			load(cAddr("DX", j, o), tb, mask)
			for i := 0; i < r; i++ {
				p("%s %s, %s, %s", fma, y(tb), y(10+i), y(acc(i, j)))
			}
		}
	}
	adv := func(b int) {
		p("ADDQ $%d, SI", b)
		p("ADDQ $%d, DI", b)
		if two {
			p("ADDQ $%d, DX", b)
		}
	}
	v := e.lanes
	p("SUBQ $%d, CX", 2*v)
	p("JL tail")
	lbl("loop")
	if pf {
		p("PREFETCHT0 (SI)(R8*%d)", *pfRows)
		p("PREFETCHT0 (SI)(R12*1)")
	}
	if cur {
		p("PREFETCH%s (R13)", *pfCursor)
		p("ADDQ $64, R13")
	}
	step(0, false)
	step(32, false)
	adv(64)
	p("SUBQ $%d, CX", 2*v)
	p("JGE loop")
	lbl("tail")
	p("ADDQ $%d, CX", 2*v)
	p("CMPQ CX, $%d", v)
	p("JL masked")
	step(0, false)
	adv(32)
	p("SUBQ $%d, CX", v)
	lbl("masked")
	p("TESTQ CX, CX")
	p("JE reduce")
	mreg := "Y14"
	if two {
		mreg = "Y15"
	}
	loadMask(e, "CX", "BX", mreg)
	step(0, true)
	lbl("reduce")
	for i := 0; i < r; i++ {
		accs := make([]int, nc)
		for j := range accs {
			accs[j] = acc(i, j)
		}
		row := i
		storeSums(e, accs, func(o int) string {
			if row == 0 {
				return off(o, "AX")
			}
			if o == 0 {
				return "(AX)(R11*1)"
			}
			return fmt.Sprintf("%d(AX)(R11*1)", o)
		}, 15)
	}
	p("VZEROUPPER")
	p("RET")
}

// ---------------------------------------------------------------------------

const maxRows, maxCols = 2, 5 // must match kernel_amd64.go (maxRows) and blocking.go (maxCols)

// pfRows is the prefetch distance in rows of the two-row kernels (0: off).
var (
	pfRows   = flag.Int("pf", 2, "near prefetch (PREFETCHT0) distance in rows of the two-row kernels (0, 2 or 4; 0: off)")
	pfCursor = flag.String("cursor", "T0", "prefetch hint (T0, T1, T2, NTA) for the cursor prefetch of the two-row kernels (empty: off)")
)

func main() {
	flag.Parse()
	raw("// Code generated by asm_gen.go; DO NOT EDIT.\n\n//go:build amd64 && !purego\n\n#include \"textflag.h\"\n")
	raw(`
// maskTab<>: 32 bytes of ones then 32 bytes of zeros. Loading 32 bytes at
// maskTab<>+32-m gives a VMASKMOV mask selecting the first m bytes' lanes.
DATA maskTab<>+0(SB)/8, $0xffffffffffffffff
DATA maskTab<>+8(SB)/8, $0xffffffffffffffff
DATA maskTab<>+16(SB)/8, $0xffffffffffffffff
DATA maskTab<>+24(SB)/8, $0xffffffffffffffff
DATA maskTab<>+32(SB)/8, $0
DATA maskTab<>+40(SB)/8, $0
DATA maskTab<>+48(SB)/8, $0
DATA maskTab<>+56(SB)/8, $0
GLOBL maskTab<>(SB), RODATA|NOPTR, $64

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
`)
	genDot(f64, "dotAVX2", false)
	genDot(f64, "sqDistAVX2", true)
	genDot(f32, "dot32AVX2", false)
	genDot(f32, "sqDist32AVX2", true)
	genMap(f64, "axpyAVX2", "axpy")
	genMap(f64, "scaleAVX2", "scale")
	genMap(f64, "addAVX2", "add")
	genMap(f32, "axpy32AVX2", "axpy")
	genMap(f32, "scale32AVX2", "scale")
	genMap(f32, "add32AVX2", "add")
	genTo64(false)
	genTo64(true)
	var decls strings.Builder
	for _, e := range []elem{f64, f32} {
		for _, two := range []bool{false, true} {
			if two && e.bits == 32 {
				continue
			}
			for r := 1; r <= maxRows; r++ {
				for nc := 1; nc <= maxCols; nc++ {
					genKernel(e, two, r, nc)
					if two {
						fmt.Fprintf(&decls, "func %s(x *%s, ldx int, a, b *%s, ldc int, d int, out *%s, ldo int, pf uintptr)\n", kernelName(e, two, r, nc), e.goType, e.goType, e.goType)
					} else {
						fmt.Fprintf(&decls, "func %s(x *%s, ldx int, c *%s, ldc int, d int, out *%s, ldo int, pf uintptr)\n", kernelName(e, two, r, nc), e.goType, e.goType, e.goType)
					}
				}
			}
		}
	}
	if err := os.WriteFile("kernel_amd64.s", buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}

	// Go declarations and dispatch tables of the blocked kernels.
	var g bytes.Buffer
	g.WriteString("// Code generated by asm_gen.go; DO NOT EDIT.\n\n//go:build amd64 && !purego\n\npackage kernel\n\n")
	g.WriteString("// Register-blocked kernels (see asm_gen.go for the contract).\n\n")
	for _, l := range strings.Split(strings.TrimSpace(decls.String()), "\n") {
		g.WriteString("//go:noescape\n" + l + "\n\n")
	}
	tab := func(name, typ, prefix string) {
		fmt.Fprintf(&g, "var %s = %s{\n", name, typ)
		for r := 1; r <= maxRows; r++ {
			fmt.Fprintf(&g, "\t%d: {", r)
			for nc := 1; nc <= maxCols; nc++ {
				fmt.Fprintf(&g, "%d: %s%dx%d, ", nc, prefix, r, nc)
			}
			g.WriteString("},\n")
		}
		g.WriteString("}\n\n")
	}
	tab("kern64", "kernTab[float64]", "dotsNT64K")
	tab("kern32", "kernTab[float32]", "dotsNT32K")
	tab("kern2_64", "kern2Tab", "dotsNT264K")
	src, err := format.Source(g.Bytes())
	if err != nil {
		log.Fatal(err, "\n", g.String())
	}
	if err := os.WriteFile("kernels_amd64.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
}
