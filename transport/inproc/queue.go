package inproc

// queue is a binary min-heap of items by (arrival time, seq). On an
// undelayed network every arrival time is 0 and seq increases, so a push
// never moves and the queue is FIFO.
type queue []item

func (q queue) less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}

func (q *queue) push(it item) {
	*q = append(*q, it)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) pop() item {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = item{}
	h = h[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && h.less(r, l) {
			l = r
		}
		if !h.less(l, i) {
			break
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
	*q = h
	return top
}
