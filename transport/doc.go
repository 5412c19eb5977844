// Package transport defines how a coordinator (the parameter server that
// drives a sync-model core) and its workers exchange messages: the
// Message, its versioned binary encoding, and the Transport and Endpoint
// interfaces that every implementation meets. Package inproc implements
// them in one process, with a seeded unreliable link (delay, jitter, drop,
// duplication) for testing protocols; package grpcnet implements them
// over gRPC streams, between processes and hosts. Package transporttest
// holds the conformance suite that every implementation passes.
//
// # Delivery
//
// A transport may delay, reorder, drop and duplicate messages, as its
// configuration says; nothing else. A message that arrives is exactly the
// message sent (the receiver gets a decoded deep copy, From stamped by the
// sending endpoint), and a malformed message is refused at Send, never
// delivered. A protocol on top must therefore number its messages (Seq),
// acknowledge them (Ack) and resend what is not acknowledged, deduplicate
// by (Job, From, Incarnation, Seq), and refuse what is stale (Reject); see
// RELIABILITY.md. A gRPC stream — reliable and ordered per stream — is the
// special case with no loss; a process that restarts loses what was in
// flight to it either way.
//
// A nil error from Send means the message was handed to the network. Send
// fails, sending nothing, only for what the sender can fix: an invalid or
// oversized message, a destination that was never opened, a closed
// endpoint or a done context. A message to a node that was opened and has
// gone away is lost and counted (Stats), as on a network: the protocol
// detects dead peers with heartbeats and leases, not with Send errors.
//
// Send may block while the receiver's queue is full (backpressure, as gRPC
// flow control blocks a stream), until its context ends. A node that sends
// and receives in one goroutine can therefore deadlock with a peer that
// does the same once both queues are full; receive in a goroutine of its
// own, or bound sends with a context deadline.
//
// # Messages
//
// Every message carries the header of RELIABILITY.md: Job, the worker's
// Incarnation, the sender's Seq, and the step (Version, Clock). The payload
// depends on the kind:
//
//	kind       direction       payload
//	Release    coord → worker  Version, Clock, Budget, Params (full, or none),
//	                           Timer (semi-centralized FSP's local timer, or 0),
//	                           Batch (K-grouping: the first batch to compute)
//	Commit     worker → coord  Version, Clock, Points, Delta (or none),
//	                           Batch (the release's first batch, echoed)
//	Ack        either          Seq of the message acknowledged
//	Join       worker → coord  Incarnation, Seq of the last commit sent
//	           coord → worker  the join accepted: Seq of the last commit
//	                           accepted from the worker, Batch the number of
//	                           its streamed batches announced
//	Leave      worker → coord  Delta still held (a filter's Flush), Reason;
//	                           after a Stop, Seq of the last commit sent
//	Interrupt  coord → worker  commit what was processed so far (FSP)
//	Stop       coord → worker  Reason
//	Heartbeat  either          renews the sender's lease; from a worker,
//	                           Clock of the next release it has not started
//	Reject     either          Seq of the message refused, Reason; to a
//	                           worker, Incarnation to rejoin as (0: none)
//	Progress   worker → coord  Points processed since the Release
//	Batch      worker → coord  Batch: the streamed batch now complete
//	           coord → worker  Batch: the number of the worker's batches
//	                           announced (a cumulative acknowledgement)
//
// Only Release carries Params (the layout's length, or none: the worker
// keeps its parameters) and a Timer, only Commit and Leave carry a Delta,
// and only Release, Commit, Batch and Join a Batch number; Reason is
// allowed on any kind. Directions are the protocol's convention, not
// checked. Message.AppendBinary documents the format byte by byte;
// Unmarshal validates every byte of it against the layout the receiver
// expects; Message.Validate applies the same rules to a message before it
// is encoded; Message.Size is the exact encoded length, computed without
// encoding, so a simulator charges the same bytes the transport sends, and
// Message.MaxSize a constant-time upper bound for size limits.
//
// # Design choices
//
//   - Plain Go structs. Message holds an *algorithms.Delta, not bytes: the
//     core deals in deltas, and the delta codec is package filter's
//     (AppendDelta with filter.Float64, DecodeDelta), not a second one.
//     Unmarshal accepts every delta form filter writes, so a future sender
//     may compress commits (float32, QSGD) without a format change. A gRPC
//     implementation maps Message to its own proto message at its edge
//     (or carries AppendBinary's bytes); generated types never appear here.
//   - One format version byte, so the format can evolve; varints are
//     minimal, so a message without a delta has exactly one encoding, and
//     the fuzzer checks that re-encoding what Unmarshal accepts changes
//     nothing.
//   - From is stamped by the endpoint, and the caller's message is neither
//     modified nor retained.
//   - Nodes open, close and reopen: a worker that crashes closes (or loses)
//     its endpoint, and comes back by opening the same ID with its
//     Incarnation incremented. Opening an open node is ErrAlreadyOpen.
//   - Progress was added to the kinds of the original design: it is the
//     consistency core's EvProgress ("point done"), which time-triggered
//     barriers act on. Leave may carry a delta, so a leaving worker's held
//     updates (MLLess §4.2) are not lost. Release's Timer (format version
//     2) carries semi-centralized FSP's per-worker local timer η ± δ_i
//     (FSP paper §5.2); it travels behind a flag, so messages without one
//     are as long as in version 1. The Batch kind and field (format
//     version 3) carry DOLL's streamed batches (§III-A, Algorithms 1 to
//     4): a worker's batch indicators, the coordinator's cumulative
//     acknowledgements of them and the count a rejoining worker resumes
//     its stream from, and the batches a release names and its commit
//     echoes; the field too travels behind a flag. Batch indicators get
//     their own kind, not Progress, because they are numbered per worker
//     and acknowledged, while Progress is a best-effort point count.
//   - NodeIDs are −1 (Coordinator) to 2^31−1 (MaxNode), so they decode
//     portably.
//   - Recv with a context that is already done receives nothing, as
//     x/sync/semaphore acquires nothing; so a cancelled loop stops at once.
//   - Stats counts per node and per kind, messages and bytes, sent,
//     duplicated, dropped and received, and every message is accounted
//     for: Sent + Duplicated = Received + Dropped + in flight.
package transport
