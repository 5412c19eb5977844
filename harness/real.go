package harness

import (
	"context"
	"errors"
)

func runReal(ctx context.Context, e *Experiment, st *setupState) (*Result, error) {
	return nil, errors.New("harness: real clock not implemented yet")
}
