// Package storenet implements transport.Transport over an exchange.Store,
// so that the coordinator-based runtimes of package harness — every sync
// model, BSP to K-grouping — run with their messages going through a
// shared store, Redis or the in-process exchange.Memory, as serverless
// functions must: they cannot talk to each other directly, so MLLess
// (§3.1, "Communication channels") moves its updates through Redis and its
// control messages through a messaging service, and each worker "pulls
// all the local updates from external storage (Redis)" (§3.2). Here the
// same store carries both: a node's inbox is a topic.
//
// # Design
//
//   - Inboxes. Node id's inbox is the topic inbox/<id>. Send appends the
//     message, in transport.Message's encoding, to the recipient's inbox;
//     Recv reads its inbox in order (Read blocks until a note arrives),
//     remembering the last note read. One store round trip per message
//     (Append), one per batch of up to Config.Batch notes received.
//   - Blobs. A message larger than Config.Inline (16 KiB) goes to a key of
//     its own, msg/<to>/<sender's token>/<n>, and the note holds only the
//     key, the size and a CRC-32C: MLLess §3.1's large updates in Redis
//     with the small signal apart, and the P2P paper's S3 objects named in
//     its queue messages. The receiver checks, decodes and deletes the
//     blob. So an inbox (a capped stream) holds small notes, whatever the
//     model's size. (The blob of a message never read — its node closed,
//     its note trimmed — stays in the namespace.) exchange.Peer has blobs
//     too, but it carries updates only (messages with a delta) and
//     deduplicates them, where a transport carries every kind and must
//     deliver a retransmission, which the protocol acknowledges again.
//   - Registration and reopening. Open dials a store client of the
//     endpoint's own (Config.Dial), registers the node (key node/<id>:
//     Send to a node registered nowhere fails with
//     transport.ErrUnknownNode) and appends an open marker to its inbox;
//     it reads after the marker, so a reopened node starts empty, as the
//     transport contract asks.
//   - Processes. Networks in different processes over one namespace form
//     one transport: a worker's process opens its node, the coordinator's
//     opens the coordinator, and each Network counts its own side
//     (Stats).
//
// # What a store fault loses, and how a run recovers
//
// The transport contract allows a transport to drop messages, and the
// protocol above (RELIABILITY.md; harness's runtime) numbers, acknowledges
// and resends them, renews leases and rejoins, and deduplicates, so that
// no delta is lost or applied twice. A store fault is therefore a loss,
// reported and counted, never an error of Send or Recv:
//
//   - A store that loses its data — a Redis killed and restarted without
//     persistence — loses every inbox's notes and every blob. Each
//     endpoint's client finds out at its next call: the namespace's epoch
//     (package exchange) is gone, and the call is refused, having done
//     nothing (the check and the effect are one Lua script). The endpoint
//     adopts the new epoch (Store.Recover), registers its node again and
//     reads its inbox from the new epoch's first note. Lost: the messages
//     that were in the inboxes, not yet read — the notes after each
//     reader's last. Notes already fetched (a Read returns up to
//     Config.Batch) are in memory and are delivered. A Send refused by the
//     epoch check is made again in the new epoch, so it is not lost. Each
//     reader reports its loss (a Loss of kind Restart naming the inbox,
//     the two epochs and the first note lost) and the messages lost that
//     this Network's endpoints had sent (all of them when every node runs
//     on one Network, as in harness's goroutine runtime), which Stats
//     counts as dropped.
//   - A store that cannot be reached drops the message a Send was sending
//     (Unsent) and makes Recv wait. Each failure in a row doubles the
//     endpoint's wait (Config.Backoff, at most MaxBackoff), during which
//     Sends drop at once: an outage costs a few store calls a second per
//     endpoint, not one per message. (RedisDial's clients fail fast for the
//     same reason: go-redis's defaults retry for about 2 s, which would
//     stall a worker past its lease.)
//   - A reader that falls more than exchange.Limits.MaxNotes behind loses
//     the oldest notes (Trimmed); a note that can never be read — foreign,
//     malformed, its blob gone or corrupt — is skipped (Unreadable). Both
//     are reported and the inbox goes on.
//
// The run recovers as from any lossy network: a worker retransmits its
// commit every Retry until it is acknowledged, a waiting worker's
// heartbeat makes the coordinator re-send its release, the coordinator
// acknowledges a duplicate commit again without applying it, and a worker
// whose lease ran out while the store was away rejoins as its next
// incarnation. TestRedisRestartMidRun kills redis-server with SIGKILL in
// the middle of BSP and ASP runs (and once for longer than a lease) and
// checks that the trace passes consistency.Check: no delta lost, none
// applied twice.
//
// Accounting. Every message a Network's endpoint sends to a node opened on
// the same Network is, at every moment, received, dropped or in flight
// (Sent = Received + Dropped + in flight, and nothing is in flight once
// the Network is closed): a ledger follows each note from the sender's
// Append to the reader's cursor, including the notes a reader handles
// before their sender has recorded them.
package storenet
