package emcore

import (
	"slices"

	"github.com/syncmodels/syncmodels/algorithms"
)

// Checkpoint returns a checkpoint, with the given owner, of a worker whose
// per-point state is the slice st (K-means' assignments, GMM's
// responsibilities, fuzzy c-means' weights): a copy of st.
func Checkpoint[T any](owner string, st []T) algorithms.Checkpoint {
	return algorithms.NewCheckpoint(owner, slices.Clone(st))
}

// Restore copies the per-point state of a checkpoint made by Checkpoint
// into st, or returns the error of algorithms.CheckpointState and leaves
// st alone.
func Restore[T any](c algorithms.Checkpoint, owner string, st []T) error {
	saved, err := algorithms.CheckpointState[[]T](c, owner)
	if err != nil {
		return err
	}
	copy(st, saved)
	return nil
}
