// Package p2p trains data-parallel models peer to peer, with no
// coordinator, through a shared store: the architecture of A. Barrak,
// R. Trabelsi, F. Jaafar and F. Petrillo, "Exploring the Impact of
// Serverless Computing on Peer To Peer Training Machine Learning" (the
// P2P serverless paper).
//
// # The protocol (§III-B, Algorithm 1)
//
// Every peer keeps a replica of θ — a Server of the workload of its own,
// with its own optimizer state — and trains on its shard. Each round it
// computes a gradient on its shard's next Config.Batch points (0: the
// whole shard, Algorithm 1's average over its m batches), publishes it
// to its own slot (exchange.Peer.Publish: §III-B3's queue that "contains
// a single, persistent gradient message" which a new one replaces),
// reads the other peers' latest updates without consuming them
// (exchange.Peer.Fresh: "Peers can access and consume gradient messages
// from all other queues without deleting them"), and applies the average
// of its own and theirs to its replica (§III-B5). With Config.QSGD the
// gradient is quantised (Alistarh et al., §III-B4) and published as
// packed levels (exchange.Peer.PublishPacked), so the store moves about
// 9 bits an entry where float64 moves 64 — the paper's code quantised
// but sent float32, saving nothing; a peer averages its own update as
// the others receive it, so that synchronous replicas stay identical.
//
// Two modes (§III-B6, Fig. 2): Sync waits at a barrier every round, and
// every peer averages the same round of every peer; Async does not wait,
// and a peer averages whatever the others last published that it has not
// averaged yet (each update at most once: Fresh's dedup; the paper's
// code would average a slow peer's same message again every round).
//
// # The paper's race, and the fix
//
// The paper's barrier (§III-B6; its code's sync_queue_name) is one queue
// for the whole run: each peer posts a message when it is done with the
// epoch, polls the queue's message count until it equals the number of
// peers, sleeps three seconds and purges it. Two races follow. The count
// mixes epochs: a peer that is slower than the others' sleep to see the
// count reach P finds it purged (and spins), or counts a fast peer's
// message of the next epoch in this one. And the barrier does not protect
// the values: once past it, a fast peer reads, updates, computes and
// publishes its next gradient into its one-message queue — replacing the
// current one before a slow peer has read it, so the slow peer averages
// round r+1's update in round r, and never sees round r's.
//
// Here each round's barrier is a counting set of its own ("pub/r",
// exchange.Peer.Arrive and WaitCount): arrivals are idempotent and never
// purged, so a count never mixes rounds and a retried arrival never counts
// twice. And a round waits twice (TwoBarriers, the default): after
// publishing ("pub/r": every slot holds round r before anyone reads) and
// after reading ("read/r": nobody replaces its round-r update before
// every peer has read it). The paper's one barrier a round is kept as
// OneBarrier, to reproduce the race; Check reports it. (Keying updates
// by round, g/r/peer, would need one barrier but give up the paper's
// latest-value slots and leave old rounds to delete.)
//
// # Virtual time over a real store
//
// Run drives the peers in virtual time. Each peer runs its protocol in a
// goroutine, but only one runs at a time: the scheduler decides when each
// computation and each store request happens by a CostModel — computation
// per point and per batch (or per function invocation, Serverless),
// store round trips, bandwidth, a seeded per-request latency (package
// latency), per-peer slowdowns — and carries the requests out on the real
// store, in-process (exchange.Memory) or Redis (package redisx), one at a
// time in virtual-time order. So the schedule never depends on the wall
// clock: the same seed gives the same trace, curve, timings and traffic
// on either store and on any machine. A peer blocked at a barrier is
// parked until an arrival completes the count, and counts again, for
// real; Faults (a store restarted at a virtual time) wake it to find the
// loss, as a real client's wait would.
//
// # Losses
//
// A store that loses its data (a Redis restarted without persistence)
// fails every call with an exchange.LostError; the peer records the loss,
// recovers (exchange.Peer.Recover restores its latest update and its
// remembered arrivals, with the same IDs) and redoes the step it was in:
// a publish is published again, a barrier is arrived at and waited for
// again, and a peer interrupted while reading waits at "pub/r" again —
// until every peer has restored its slot — before it reads the slots it
// has not read. Fresh returns no update twice, so nothing is averaged
// twice.
//
// # The checker
//
// Check verifies a run's Trace: Sync — every peer averaged exactly the
// round-r update of every peer in its round r (RuleRound, and
// consistency.RuleLost for one missing), nothing twice
// (consistency.RuleTwice), and identical replicas after every round
// (RuleReplica); Async — nothing twice or out of order, and it reports
// the staleness distribution (the reader's round minus the update's) and
// every update nobody read, overwritten or still unread at the end. It
// lives here rather than in package consistency because a consistency
// Trace records one coordinator's versions, which every rule of Check
// there assumes (versions applied in order, each delta applied once);
// peer-to-peer has no coordinator and one replica per peer, so each
// update is applied P−1 times, by design. The violations are
// consistency.Violation, in the same order (root causes first).
//
// # Serverless and cost (§III-C, §V-B)
//
// With CostModel.Serverless a peer (a small instance) computes each of its
// batches in a cloud function, all at once (the paper's dynamic Step
// Functions state machine) or Concurrency at a time; PaperVGG11 is the
// cost model fitted to Tables II and III (VGG11 on MNIST, four peers).
// Result.Bill prices a run on a cost.Ledger — each peer's instance for
// its lifetime, each invocation rounded up to 100 ms at a memory-
// proportional price (LambdaPrice) — and PaperCost is the paper's own
// Eq. 1 and 2, which bill every function for the whole computation. The
// paper reports up to 97.34% faster gradient computation with functions,
// at up to 5.4 times the cost.
//
// # Reported
//
// Result gives, per peer, the time computing, communicating (store
// requests) and waiting at barriers (Fig. 4 splits an epoch into
// computation and communication), the store's requests and bytes
// (QSGD's saving), function invocations and losses recovered; and the
// objective (and Config.Accuracy) of the replicas round by round (Fig. 6).
package p2p
