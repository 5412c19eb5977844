// Package migrate is FSP's lightweight dynamic workload balance (Wang et
// al., "FSP: Towards Flexible Synchronous Parallel Frameworks for
// Distributed Machine Learning", §4, papers/fsp-flegel-flexible-barrier):
// data migrates from stragglers to fast workers so that every point is
// traversed about equally often over the whole training, not only in the
// remaining iterations. It is pure, deterministic data — no goroutines, no
// clock, no randomness — that a runtime drives: time, speeds and the
// predicted remaining time come in as values.
//
// # Pieces
//
//   - Stats, Groups (§4.2): per-worker statistics — passes p, speed v,
//     points n — and super-workers, workers whose statistics are the same
//     within a Tolerance, planned for as one.
//   - Imbalance, Predict, Eq9 (§4.2): the left side of Eq. 8, the predicted
//     passes P̃ = P + τ·V/N, and the Eq. 9 migration amount with its
//     compensation case.
//   - Planner (§4.2): at every barrier, the Eq. 8 test and, when it fails,
//     balancing cycles of d rounds that pair the super-worker with the
//     fewest predicted passes with the one with the most, and so on
//     inwards, and turn each pair's Eq. 9 amount into per-worker Transfers.
//   - Placement (§4.3): who owns and trains each point; per worker the
//     round robin over its active points, the priority queue of received
//     points, the bi-directional sliding window that locks outgoing
//     points, and the active/inactive marks of virtual migration.
//   - Clone: an independent copy of a Placement, for a runtime that rolls
//     training back to a checkpoint.
//   - History (§6.3, Fig. 12): per worker, passes and accumulated
//     objective contribution over time, as plain data.
//
// # Driving it
//
// A runtime keeps one Placement (sizes of the shards) and one Planner:
//
//	pl, _ := migrate.NewPlacement(sizes, migrate.PlacementConfig{})
//	planner, _ := migrate.NewPlanner(migrate.Config{})
//
//	// A worker computes a batch (or a chunk of one):
//	pts, _ := pl.Next(buf[:0], w, k) // points to train, in order
//	// ... train pts[:n] (n < k if it was interrupted) ...
//	pl.Advance(w, n)
//
//	// At every barrier:
//	for w := range workers { pl.BeginIteration(w) } // as each is released
//	stats, _ := pl.Stats(speeds)                   // measured points/s
//	dec, _ := planner.Plan(migrate.Barrier{Now: now, Workers: stats, Remaining: T})
//	if dec.NewPlan { pl.SetPlan(dec.Transfers) }
//	for w := range workers { openWindow(w) }
//
//	// openWindow: win, ok, _ := pl.OpenWindow(w); if ok, send win (the
//	// data of win.Points[win.Virtual:]; the rest is a mark flip) and, when
//	// the target has it, pl.Deliver(win.ID) and openWindow(win.From)
//	// again. A failed send: pl.Abort(win.ID).
//
// The runtime models the delay of a window (latency, and bandwidth for
// its data points); the Placement does not care how long it takes.
//
// # Migration in flight and the round robin
//
// FSP's migration is asynchronous: local training never waits for it
// (§4.3). Here:
//
//   - A worker trains round robin over its slots (its own points, then the
//     copies it received, in arrival order): Next returns the points from
//     the cursor on, skipping every slot that is not active here. The most
//     recently trained point is not trained again before a full pass.
//   - OpenWindow locks at most WindowSize points at a time, bottom-up from
//     the end of the part of the current pass not yet traversed, towards
//     the point trained next (the focus): training moves down, windows
//     move up, and the two meet. A locked point is skipped by Next, never
//     waited for; while in flight it is owned by its source and trained
//     by nobody — the loss of passes §4.3 bounds by keeping windows small.
//     The focus itself and queued points are never locked, so a source
//     always keeps a point to train.
//   - Deliver makes the points active at the target. A point whose count
//     is below what the target's round robin has given its slot lost
//     passes: it enters the target's priority queue, which Next serves
//     first, fewest traversals first, each point at most once per
//     iteration (θ does not change within one; BeginIteration starts the
//     next). Once its count has caught up it leaves the queue and is
//     trained round robin at its slot like a native point (§4.3: "regarded
//     as native when their lost passes have already been compensated").
//   - The round robin's cursor is never moved by a migration, so the
//     points that stay are traversed exactly as before.
//
// # Virtual migration
//
// A point keeps a copy at its home and at every worker it was ever sent
// to; exactly one copy owns it (active, or locked in a window) and every
// other is inactive (§4.3). Migrating a point to a worker that holds a
// copy flips the two marks and moves no data: Window.Virtual counts them,
// and OpenWindow takes them first. SetPlan re-matches the sources and
// targets of each planner pair so that a reversed migration sends points
// back to where they came from. Check verifies, after any operation, that
// every point has exactly one owner and that no point in a round robin
// lost a pass.
//
// # Choices the paper leaves open, and deviations
//
//   - Speeds are points per second; the paper's V is seconds per point.
//     Eq. 9 then has the closed form given at Eq9 (its Δ² terms cancel).
//     When the migrated points are ahead of the target's (P_dst < P_src)
//     there is nothing to compensate and Eq9 solves the plain equal-pass
//     equation by bisection.
//   - The passes P of a worker are the mean traversal count of the points
//     it owns (points processed / shard size when nothing moved); migrated
//     points carry their counts, so P measures how much the data a worker
//     holds has been used, which is what Eq. 8 balances.
//   - Eq. 8 averages over the K super-workers, as written. Which passes it
//     compares is Config.Test: the predicted passes at convergence
//     (TestFinal, the default: Eq. 8 is stated for P*), at the end of the
//     next split (TestSplit) or the passes so far (TestCurrent, "monitor P_i
//     at each barrier"). ε defaults to 0.5 and d to 4; the paper gives
//     neither. Config.MinSplit stretches very short splits, which an
//     underestimated T produces near the end of training and which make
//     Eq. 9 move most of the data back and forth.
//   - A round's amounts replace whatever the previous round left pending
//     (windows in flight still arrive): each round plans from the
//     statistics as they are.
package migrate
