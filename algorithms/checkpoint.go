package algorithms

import "fmt"

// Checkpointer is implemented by a Server or Worker whose state can be saved
// and restored: FSP's interval probes roll back to a checkpoint and train
// the same data again (FSP paper §3.3), and a runtime that loses a computed
// delta restores the worker that computed it.
//
// It is optional: a runtime checks for it with a type assertion. Every
// Server and Worker in this module implements it.
type Checkpointer interface {
	// Checkpoint returns an opaque deep copy of the state: for a Server its
	// parameters and whatever produces them (running statistics, optimizer
	// state, step counters); for a Worker its per-point state, not the
	// parameters installed by SetParams and not the caller's cursor.
	// Later calls on the object do not change the checkpoint.
	Checkpoint() Checkpoint
	// Restore returns the object to the state of a checkpoint taken from
	// it, or from an object built identically (same workload, shape and,
	// for a Worker, points). A checkpoint from any other object, or the
	// zero Checkpoint, returns an error wrapping ErrLayout and changes
	// nothing. The object does not keep the checkpoint's storage: the
	// checkpoint stays valid and can be restored again.
	//
	// A Worker keeps the parameters it was last given; a Server's earlier
	// Params slices are valid only until Restore, as until Apply.
	Restore(Checkpoint) error
}

// Checkpoint is a saved state of a Server or Worker (see Checkpointer). It
// is opaque and immutable, so copying a Checkpoint is cheap and the copies
// share the state. The zero Checkpoint is empty: every Restore refuses it.
//
// Implementations make one with NewCheckpoint and read it back with
// CheckpointState.
type Checkpoint struct {
	owner string
	state any
}

// NewCheckpoint is for implementations of Checkpointer: it returns a
// checkpoint of state taken from the object identified by owner, a
// description of the object's kind and shape such as "kmeans worker,
// layout {…}, 75 points (hash …)" (ShardOwner makes one for a Worker).
// Two objects have the same owner exactly when one's state can be restored
// into the other. state must be a deep copy that nothing modifies
// afterwards.
func NewCheckpoint(owner string, state any) Checkpoint {
	if owner == "" {
		panic("algorithms: NewCheckpoint with an empty owner")
	}
	return Checkpoint{owner: owner, state: state}
}

// Owner returns the owner c was taken from ("" for the zero Checkpoint),
// for messages.
func (c Checkpoint) Owner() string { return c.owner }

// CheckpointState is for implementations of Checkpointer.Restore: it
// returns the state of c if c was taken from an object identified by owner
// and holds a T, else an error wrapping ErrLayout that names both owners.
// The caller copies out of the state and must not modify or keep it.
func CheckpointState[T any](c Checkpoint, owner string) (T, error) {
	var zero T
	if c.owner == "" {
		return zero, fmt.Errorf("algorithms: empty checkpoint restored into %s: %w", owner, ErrLayout)
	}
	if c.owner != owner {
		return zero, fmt.Errorf("algorithms: checkpoint of %s restored into %s: %w", c.owner, owner, ErrLayout)
	}
	st, ok := c.state.(T)
	if !ok {
		return zero, fmt.Errorf("algorithms: checkpoint of %s holds %T, want %T: %w", owner, c.state, zero, ErrLayout)
	}
	return st, nil
}

// ShardOwner returns the owner of checkpoints of a Worker of the workload
// called name with layout l over the given points: it names the workload,
// the layout, the number of points and a 64-bit hash of their indices in
// order, so that a worker over other points refuses the checkpoint.
func ShardOwner(name string, l Layout, points []int) string {
	h := uint64(len(points))
	for _, p := range points {
		h = mix64(h ^ uint64(p))
	}
	return fmt.Sprintf("%s worker, layout %+v, %d points (hash %016x)", name, l, len(points), h)
}

// mix64 is the splitmix64 finaliser with the golden-ratio increment.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Stateless implements Checkpointer for a Worker without per-point state,
// such as a gradient-descent worker: a checkpoint records only the owner,
// and Restore only checks it. Such a worker embeds the Stateless that
// NewStateless returns for it, so that a runtime can treat every worker
// alike.
type Stateless struct{ owner string }

// NewStateless returns a Stateless whose checkpoints have the given owner,
// usually ShardOwner(name, layout, points).
func NewStateless(owner string) Stateless { return Stateless{owner: owner} }

// Checkpoint returns a checkpoint that records the owner.
func (s Stateless) Checkpoint() Checkpoint { return NewCheckpoint(s.owner, struct{}{}) }

// Restore returns an error wrapping ErrLayout unless c was taken from an
// object with the same owner; it changes nothing.
func (s Stateless) Restore(c Checkpoint) error {
	_, err := CheckpointState[struct{}](c, s.owner)
	return err
}

func (Stateless) stateless() {}

// HasState reports whether w keeps per-point state, that is, whether it
// does not embed a Stateless. A runtime must not replace such a worker by
// a fresh one while the server holds its points' contributions: the
// fresh worker would count them again.
func HasState(w Worker) bool {
	_, ok := w.(interface{ stateless() })
	return !ok
}
