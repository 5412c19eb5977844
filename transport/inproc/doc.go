// Package inproc is an in-process transport.Transport that behaves like a
// network: every message is encoded on Send (Message.AppendBinary, after
// Message.Validate against the configured layout) and decoded on Recv
// (transport.Unmarshal), so the receiver gets a deep copy and the bytes
// counted are the bytes a network would carry, and the link delays,
// reorders, drops and duplicates messages as a seeded Config says.
//
// # The link
//
// A Send that is accepted (a valid message to a node opened before) draws
// four numbers from the sending endpoint's random stream, whatever the
// configuration: whether the message is dropped (probability Drop),
// whether it is duplicated (probability Duplicate, for a message not
// dropped), and the jitter of each copy, uniform in [0, Jitter). A copy arrives Delay plus its jitter
// after the Send. Each opening of a node has its own PCG stream (from Seed,
// the node ID and the number of earlier openings), so a sender's losses
// depend only on the seed and its own sequence of Sends — not on other
// senders' goroutines, nor on Delay, Jitter or Duplicate.
//
// Each endpoint has one queue of the messages addressed to it, in flight or
// arrived, ordered by arrival time and then by the order they were queued.
// Recv takes the head once it has arrived, waiting for it with one timer on
// the Clock; no goroutine or timer runs per message, and with neither Delay
// nor Jitter the clock is never read and the queue is FIFO. The default
// clock is the real one, which testing/synctest fakes, so tests observe
// delays exactly and instantly.
//
// # Full queues, closed nodes
//
// The queue holds at most Inbox messages, counting those in flight to it.
// A Send to a full queue blocks until the receiver makes room, the
// sender's context ends (ctx.Err(); nothing is sent) or the sender is
// closed (transport.ErrClosed) — backpressure, as gRPC flow control gives,
// rather than silent loss, so that a reliable configuration stays
// reliable. A duplicate never blocks: with no room it is dropped and
// counted. A message to a node that was opened and is now closed, and the
// messages still queued when a node or the network closes, are dropped and
// counted as the sender's. The Network starts no goroutine.
//
// # Cost
//
// On the 2-core reference machine (BenchmarkSendRecv, one sender and one
// receiver goroutine, medians of 6 runs on a shared machine), a heartbeat
// takes about 0.5 µs from Send to Recv against 0.26 µs for encoding, a
// buffered channel and decoding alone ("chan"); a commit of a dense delta
// of 1,000 float64 entries about 12.6 µs against 11.5 µs, and of 100,000
// entries 1.2–1.6 ms against 1.1 ms (about 600 MB/s): the codec, and
// decoding above all, dominates. A Send validates and encodes (about
// 5 µs for the 1,000-entry commit) and allocates nothing once its pool of
// buffers is warm; Recv allocates the decoded message.
package inproc
