package migrate_test

import (
	"errors"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/migrate"
)

// TestErrorNames: an unknown worker matches the module-wide
// ErrUnknownWorker (docs/errors.md) and the deprecated alias ErrWorker, in
// an *InputError that names it.
func TestErrorNames(t *testing.T) {
	h, err := migrate.NewHistory(2)
	if err != nil {
		t.Fatal(err)
	}
	err = h.Record(2, time.Second, 1, 0)
	var ie *migrate.InputError
	if !errors.Is(err, migrate.ErrUnknownWorker) || !errors.Is(err, migrate.ErrWorker) ||
		!errors.As(err, &ie) || ie.Input != "w" || ie.Value != 2 {
		t.Errorf("Record(worker 2 of 2) = %v; want an *InputError{Input: w, Value: 2} matching ErrUnknownWorker and the deprecated ErrWorker", err)
	}
}
