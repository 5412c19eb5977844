package migrate

import (
	"cmp"
	"slices"
)

// rematch returns transfers with the same amount sent and received by
// every worker within each group of transfers with the same Pair, but with
// sources matched to targets so that as many points as possible go to a
// worker that holds a copy of them: a reversed migration then returns
// points to where they came from and moves no data. A group in which a
// worker both sends and receives is kept as given.
func (p *Placement) rematch(transfers []Transfer) []Transfer {
	n := len(p.workers)
	out, in := make([]int, n), make([]int, n)
	var res []Transfer
	done := map[int]bool{}
	for _, t := range transfers {
		if t.Points == 0 || done[t.Pair] {
			continue
		}
		done[t.Pair] = true
		clear(out)
		clear(in)
		for _, u := range transfers {
			if u.Pair == t.Pair {
				out[u.From] += u.Points
				in[u.To] += u.Points
			}
		}
		var srcs, dsts []int
		mixed := false
		for w := range n {
			if out[w] > 0 {
				srcs = append(srcs, w)
			}
			if in[w] > 0 {
				dsts = append(dsts, w)
			}
			mixed = mixed || (out[w] > 0 && in[w] > 0)
		}
		if !mixed {
			res = p.matchGroup(res, t.Pair, srcs, dsts, out, in)
			continue
		}
		for _, u := range transfers {
			if u.Pair == t.Pair && u.Points > 0 {
				res = append(res, u)
			}
		}
	}
	return res
}

// matchGroup matches one group's sources to its targets: first by the
// points each target holds copies of, most first, then in index order.
// It consumes out and in.
func (p *Placement) matchGroup(res []Transfer, pair int, srcs, dsts []int, out, in []int) []Transfer {
	type cand struct{ s, t, held int }
	var cands []cand
	for _, s := range srcs {
		wk := &p.workers[s]
		held := make([]int, len(dsts))
		for i := range wk.slots {
			c := &wk.slots[i]
			if c.mark != active || c.queued {
				continue
			}
			for k, t := range dsts {
				if p.workers[t].slot(t, c.pt) >= 0 {
					held[k]++
				}
			}
		}
		for k, t := range dsts {
			if held[k] > 0 {
				cands = append(cands, cand{s, t, held[k]})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(b.held, a.held) })
	amount := map[[2]int]int{}
	var order [][2]int
	add := func(s, t, k int) {
		key := [2]int{s, t}
		if _, ok := amount[key]; !ok {
			order = append(order, key)
		}
		amount[key] += k
		out[s] -= k
		in[t] -= k
	}
	for _, c := range cands {
		if k := min(out[c.s], in[c.t], c.held); k > 0 {
			add(c.s, c.t, k)
		}
	}
	ti := 0
	for _, s := range srcs {
		for out[s] > 0 {
			for in[dsts[ti]] == 0 {
				ti++
			}
			add(s, dsts[ti], min(out[s], in[dsts[ti]]))
		}
	}
	for _, key := range order {
		res = append(res, Transfer{From: key[0], To: key[1], Points: amount[key], Pair: pair})
	}
	return res
}
