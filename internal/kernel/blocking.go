package kernel

// Blocking of DotsNT, DotsNT32 and DotsNT2, shared by the assembly driver
// (kernel_amd64.go) and the pure-Go code (generic.go). The split of d into
// chunks and of the k centroids into column blocks decides the rounding (each
// chunk is summed in vector lanes, reduced horizontally in an order that
// depends on the centroid's place in its block, and added to out), so the
// pure-Go code follows exactly the same plan.
//
// The centroids are split into ⌈k/panelMax⌉ near-even panels; d into
// near-even chunks short enough that the panel's slice of C (l1Budget bytes;
// both A and B for DotsNT2) stays in L1; each panel into ⌈kp/maxCols⌉
// near-even column blocks, one kernel call each (k=10 runs as 5+5, k=7 as
// 3+4 rather than 5+2; d=784 in float64 as 4×196).
var (
	l1Budget = 20 << 10
	panelMax = 3 * maxCols
)

const maxCols = 5 // centroids per kernel call; must match asm_gen.go

// chunkLen returns the chunk length for splitting d into near-equal parts
// of at most max elements (at least 8 vectors), rounded up to whole vectors.
func chunkLen(d, max, lanes int) int {
	max = (max / lanes) * lanes
	if max < 8*lanes {
		max = 8 * lanes
	}
	if d <= max {
		return d
	}
	m := (d + max - 1) / max
	c := (d + m - 1) / m
	return (c + lanes - 1) / lanes * lanes
}

// colBlock is one kernel call's worth of centroids: rows [j, j+c) of C,
// summed over d in chunks of chunk elements (the last one shorter).
type colBlock struct{ j, c, chunk int }

// appendColBlocks appends the column blocks of k centroids in the asm
// driver's order, for vectors of lanes elements and per bytes of
// coefficients per centroid and element (8 or 4; 16 for DotsNT2).
func appendColBlocks(dst []colBlock, k, d, lanes, per int) []colBlock {
	np := (k + panelMax - 1) / panelMax
	for j0, p := 0, np; p > 0; p-- {
		kp := (k - j0) / p
		g := (kp + maxCols - 1) / maxCols
		chunk := chunkLen(d, l1Budget/(kp*per), lanes)
		for j, q := 0, g; q > 0; q-- {
			c := (kp - j) / q
			dst = append(dst, colBlock{j0 + j, c, chunk})
			j += c
		}
		j0 += kp
	}
	return dst
}
