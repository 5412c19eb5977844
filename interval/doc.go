// Package interval chooses the synchronization interval η of flexible
// synchronous parallel (FSP) training — how long after each release the
// coordinator initiates the next flexible barrier (Zhigang Wang et al.,
// "FSP: Towards Flexible Synchronous Parallel Frameworks for Distributed
// Machine Learning", IEEE TPDS 2022, §3.3 "Optimal Synchronous Interval") — and
// the per-worker local timers of semi-centralized coordination (§5.2).
//
// A small η makes fresh parameters visible often (training quality per
// iteration); each barrier costs φ, so a small η also runs fewer useful
// iterations per second (quantity). The tuners look for the sweet spot:
//
//   - Fixed: a constant η (Flegel's default after its first iteration).
//   - BinarySearch (FSPB, §3.3 "Recursive Binary Searching"): from η0, the
//     measured full-batch runtime, compare the objective's change per
//     unit time under η with that over the next λ iterations under η/λ;
//     adopt η/λ while it wins, then fix η (Restart when the environment
//     changes).
//   - LinearFit (FSPV, §3.3 "Multi-Stage Self-Corrected Linear Fitting"):
//     per stage, probe two iterations at η_i and, after rolling back to
//     the same checkpoint, two at 2η_i; fit g(η) = a·η + b; run at the η*
//     maximizing Eq. (7), gain(η) = (T − φ·T/(η+φ))·g(η) (Optimum, Gain);
//     start a new stage when progress falls behind the stage's prediction.
//     When both probes lose, the stage falls back to the probe that loses
//     least per second (a line through two losses is not extrapolated)
//     and ends after one window, to probe again.
//     η* is sought within Reach of the stage's probes, and each new stage
//     probes next to the last η* (our reading of the paper): at η*/√2
//     and √2·η* if the last fit chose η* between its probes, else at
//     η*/2 and η* (η* and 2η*) if it moved below (above) them, so the
//     stages walk towards an optimum far from the first probe instead of
//     extrapolating to it. With MaxWindow above Window, a stage whose η*
//     confirms the last one's (within √2) monitors over twice the last
//     window, so a decelerating objective does not re-probe every window.
//     The stage length T scales gain(η) but does not move its maximum, so
//     no target objective is needed; given one, Stage().Remaining is the
//     T predicted as |f_cur − f_tar| over the stage's rate.
//
// # Reverse communication
//
// A tuner is driven by whatever runs the training — this module's harness,
// or any other system — in the shape of gonum's optimize methods: Next
// returns a Request naming an Op, the caller performs it and passes the
// measurements to Observe as a Report:
//
//	for training {
//		req, _ := tuner.Next()
//		switch req.Op {
//		case interval.OpRun:        // req.Iterations iterations with a barrier every req.Interval
//		case interval.OpCheckpoint: // save θ, optimizer state, every worker's data cursor
//		case interval.OpRollback:   // restore them (not the clock)
//		}
//		if err := tuner.Observe(report); err != nil { … }
//	}
//
// Tuner documents the contract (alternation, validation, determinism).
// What a caller must supply:
//
//   - for OpRun: the objective after the last barrier, the elapsed time
//     of the iterations with their barriers, the mean barrier cost φ per
//     iteration (signal to release) and the iterations done. Interval
//     FullPass asks for one full-batch BSP iteration (BinarySearch only,
//     when no η0 is configured);
//   - for OpCheckpoint and OpRollback (LinearFit only): a checkpoint of
//     everything the next iteration's outcome depends on and a way back to
//     it, so that the second probe trains the same data from the same
//     parameters as the first (§3.3); the objective at the checkpoint.
//
// Objectives are minimized (losses) by default; a config with Maximize set
// maximizes (EM's log-likelihood). Progress is always measured in the
// improving direction.
//
// # Local timers
//
// Offsets turns per-worker observations — response delay and processing
// speed — into local timers η ± δ_i so that every worker's commit reaches
// the coordinator at the same instant (§5.2, Fig. 6b); the coordinator
// still sends the release with the new parameters, η and the timers.
//
// Everything here is pure and deterministic: time comes in as data, there
// are no goroutines, no clock reads and no randomness.
package interval
