package barrier_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/syncmodels/syncmodels/barrier"
)

// This file holds what the interaction driver (interaction_test.go) and the
// reference models (model_test.go) share: the trace vocabulary. Both print
// the same lines for the same events, so their traces compare byte for byte.

func wname(w barrier.WorkerID) string { return fmt.Sprintf("w%d", w) }

func wnames(ws []barrier.WorkerID) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = wname(w)
	}
	return strings.Join(s, " ")
}

func parseWorker(s string) (barrier.WorkerID, error) {
	var w int
	if _, err := fmt.Sscanf(s, "w%d", &w); err != nil || fmt.Sprintf("w%d", w) != s {
		return 0, fmt.Errorf("bad worker %q, want w<N>", s)
	}
	return barrier.WorkerID(w), nil
}

// describe renders an error of the package as a trace phrase.
func describe(err error) string {
	var we *barrier.WaitError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &we):
		return waitPhrase(we.Err, strings.HasPrefix(we.Op, "ClockTable"), we.Round, we.Missing, we.Need)
	case errors.Is(err, barrier.ErrLeft):
		return "left"
	case errors.Is(err, barrier.ErrUnknownWorker):
		return "not a member"
	case errors.Is(err, barrier.ErrAlreadyMember):
		return "already a member"
	case errors.Is(err, barrier.ErrBusy):
		return "busy"
	}
	return "error: " + err.Error()
}

func waitPhrase(err error, clock bool, round uint64, missing []barrier.WorkerID, need int) string {
	how := "canceled"
	if errors.Is(err, context.DeadlineExceeded) {
		how = "timed out"
	}
	noun := "round"
	if clock {
		noun = "clock"
	}
	s := fmt.Sprintf("%s at %s %d", how, noun, round)
	switch {
	case len(missing) == 0:
	case need < len(missing):
		s += fmt.Sprintf("; awaiting %d of %s", need, wnames(missing))
	default:
		s += "; awaiting " + wnames(missing)
	}
	return s
}

// released renders a successful Wait.
func released(clock bool, round uint64) string {
	if clock {
		return fmt.Sprintf("released at clock %d", round)
	}
	return fmt.Sprintf("released round %d", round)
}

// errCanceled is what a cancelled Wait wraps.
var errCanceled = context.Canceled
