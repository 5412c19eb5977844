package migrate

import (
	"maps"
	"slices"
)

// Clone returns an independent copy of the placement: every worker's
// copies, marks, counts, round robin, queue, pending quotas and open
// window. A runtime that rolls its training back to a checkpoint (FSPV's
// two probes on the same data, FSP §3.3) keeps a clone with the
// checkpoint and resumes from it.
func (p *Placement) Clone() *Placement {
	q := &Placement{cfg: p.cfg, workers: make([]worker, len(p.workers)), open: maps.Clone(p.open),
		nextWin: p.nextWin, seq: p.seq, data: p.data, virtual: p.virtual}
	for w := range p.workers {
		src, dst := &p.workers[w], &q.workers[w]
		*dst = *src
		dst.slots = slices.Clone(src.slots)
		dst.guest = make([][]int32, len(src.guest))
		for h, g := range src.guest {
			dst.guest[h] = slices.Clone(g)
		}
		dst.from = slices.Clone(src.from)
		dst.queue = slices.Clone(src.queue)
		dst.rested = slices.Clone(src.rested)
		dst.quotas = slices.Clone(src.quotas)
		if src.open != nil {
			win := *src.open
			win.slots = slices.Clone(src.open.slots)
			dst.open = &win
		}
	}
	return q
}

// OpenWindows lists the ids of the open windows, ascending.
func (p *Placement) OpenWindows() []uint64 {
	ids := slices.Collect(maps.Keys(p.open))
	slices.Sort(ids)
	return ids
}
