package harness

import "github.com/syncmodels/syncmodels/algorithms"

// TODO(transport): use transport.Message.Size once it lands.
func releaseSize(l algorithms.Layout) int { return 64 + 8*l.Params }

func commitSize(d *algorithms.Delta) int {
	if d.Sparse() {
		return 64 + 12*d.Live()
	}
	return 64 + 8*d.Len()
}
