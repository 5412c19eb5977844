// Package exchange moves updates between the workers of a training job
// through a shared store instead of a coordinator's socket, as serverless
// training must: functions cannot talk to each other directly, so MLLess
// (§3.1) exchanges updates through Redis and signals through RabbitMQ, the
// P2P serverless paper (§III-A, §III-B3) through RabbitMQ queues with S3 for
// large messages, and slsML through S3, SNS topics and a DynamoDB counter.
//
// # Two layers
//
// Store is the service, with the papers' primitives and nothing more:
//
//   - values under keys, read without being consumed (Put, Get, Delete):
//     the P2P paper's peer queues that "contain a single, persistent
//     gradient message" which a new one replaces and which "peers can
//     access and consume … without deleting" (§III-B3); MLLess's updates
//     in Redis (§3.1); slsML's gradients in S3 partitioned per reducer;
//   - counting sets (Arrive, Count, WaitCount) for barriers and quorums:
//     slsML's ReduceLauncher "keeps track of finishing workers by
//     maintaining a counter in DynamoDB" and proceeds at a fraction of
//     them (its counting semaphore); the P2P paper's synchronisation
//     queue whose size is compared with the number of peers (§III-B6);
//   - topics (Append, Read) for notifications: MLLess announces each
//     update on its signaling channel (§3.1: "the availability of a local
//     update is announced to the rest of workers"), slsML chains its
//     phases with SNS topics.
//
// Peer is a participant of a job on a Store: it writes and reads updates —
// transport.Messages carrying a delta, in transport.Message's encoding
// (itself filter's delta codec), so the exchange invents no format — under
// the rules of RELIABILITY.md: every update carries (job, peer,
// incarnation, seq), readers deduplicate on it, bad input is refused with
// an error that names the key and changes nothing. Publish/Latest/Fresh
// are the P2P paper's latest-value queues; Put/Get store updates under the
// caller's keys (slsML's partitions); Post/Next are MLLess's announced
// updates; Arrive/WaitCount are barriers and quorums. A large update goes
// to a blob and the slot or note holds only its key, size and checksum
// (MLLess §3.1; the P2P paper's S3 objects referenced by UUID, §III-B3).
//
// Implementations of Store: Memory, in process — the default: no network,
// no goroutines, deterministic (the same calls in the same order give the
// same results, epochs and note numbers) — and package redisx, a real
// Redis through github.com/redis/go-redis/v9. Package exchangetest's
// conformance suite runs against both.
//
// # Design choices
//
// Counting sets, not counters. An increment is not idempotent: a client
// that retries after a lost reply (go-redis retries by default) counts
// twice, and a barrier releases early. A set counts each member once, so
// arrivals may be retried, replayed and restored after a loss. The P2P
// paper's barrier counts messages in a queue, which races: a peer that
// finished epoch e+1 before a slow one read the count of epoch e is
// counted in it. Here each round has its own set (round/e).
//
// Topics are streams, not pub/sub. Redis pub/sub delivers only to
// subscribers connected at that moment: a reader that reconnects (a
// network blip, a function cold start) silently misses what was sent
// meanwhile. A stream keeps its notes, numbered, and a reader resumes
// after the last number it read; a topic keeps its last Limits.MaxNotes
// notes, and a reader that falls further behind is told which notes it
// missed (ErrTrimmed), never silently. RabbitMQ (which P2P and MLLess
// used) would serve the latest-value queues no better: a queue holding
// one message that readers must not consume is a key; and its queues are
// consumed, where a topic here is read by every peer at its own pace.
//
// Epochs detect loss. A Redis restarted without persistence comes back
// empty; a client that went on would read nothing and wait forever at a
// barrier whose arrivals were lost, or mix old and new data. Each
// namespace holds an epoch token, written when the first client opens it;
// every operation checks it atomically with its effect (Redis runs the
// check and the operation in one Lua script), so after a loss every
// operation fails with an *EpochError and has no effect until the client
// calls Recover. A Peer turns it into a *LostError that names what it
// had in the store (its slot and blobs, the updates, the topics it posted
// to, the barriers it arrived at, how far it had read), and Peer.Recover
// restores what the peer still holds, with the same update IDs: readers
// recognise those they already applied, so nothing is applied twice.
//
// Write order and retries. A peer's writes are serialised, so a reader
// never sees its Seq go backwards; every write is idempotent (a Put, an
// arrival) or deduplicated by readers (an appended note), so a write that
// failed with ErrUnavailable — applied or not — can be retried.
//
// Names. Keys, sets and topics are ASCII letters, digits and ._/:=@+-,
// at most MaxName bytes (CheckName). A Peer's keys are latest/<peer>,
// blob/<peer>/<incarnation>/<seq> and post/<topic>/<peer>/<incarnation>/<seq>;
// the caller's keys go elsewhere.
//
// What the store loses. Without persistence, a Redis restart loses every
// key, set and note of every namespace. Peers restore their latest update,
// their last Config.Remember puts, posts and arrivals; lost for good are
// the notes and arrivals of peers that are gone or that wrote more than
// they remember, and the notes a reader had not read yet unless their
// writers restore them. A Redis with persistence (RDB snapshots) restarts
// with the data of its last snapshot, epoch included: redisx detects the
// restart by the server's run_id (Check) and reports it as a loss, since
// writes after the snapshot are gone.
package exchange
