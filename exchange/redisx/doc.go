// Package redisx implements exchange.Store on a real Redis server
// (github.com/redis/go-redis/v9), for workers that exchange updates
// through Redis as MLLess's do (MLLess §3.1: "a low-latency, in-memory
// key-value store"). Open connects a client for one namespace (a job);
// package exchangetest's conformance suite holds it to the same contract
// as the in-process exchange.Memory, against a redis-server that
// redistest starts for each test.
//
// # Data layout
//
// Every key of a namespace starts with Prefix (default "syncmodels:") and
// the namespace in braces, a Redis Cluster hash tag, so that one script
// can touch a namespace's keys together:
//
//	syncmodels:{ns}:epoch      the namespace's epoch token (a string)
//	syncmodels:{ns}:k:<key>    a value (a string)
//	syncmodels:{ns}:c:<set>    a counting set (a set of members)
//	syncmodels:{ns}:w:<set>    the set's wake-up stream (one entry per new member)
//	syncmodels:{ns}:t:<topic>  a topic (a stream; note n has ID n-0, field d)
//	syncmodels:{ns}:n:<topic>  the topic's note counter
//
// # One script per operation
//
// Each operation is one Lua script (EVALSHA, falling back to EVAL after
// a restart flushed the script cache) that first compares the epoch key
// with the client's epoch and, if they differ, returns an error and does
// nothing: the check and the effect are atomic, so a write never lands
// in a store that lost its data, and a read never returns data of
// another epoch. Get checks the value's length (STRLEN) before sending
// it, so an oversized value is refused without being transferred.
// Arrive is SADD + SCARD (idempotent, unlike INCR under retries), and
// adds an entry to the set's wake-up stream when the member is new.
// Append is INCR + XADD with an explicit ID and MAXLEN (exact trimming);
// Read is XRANGE, after checking that no note after the reader's position
// was trimmed.
//
// # Blocking without polling
//
// WaitCount reads the count and the wake-up stream's last ID in one
// script, then blocks in XREAD BLOCK on the stream after that ID, so an
// arrival between the two calls is not missed and no request is made
// while nothing happens. Read blocks the same way on the topic's stream.
// A blocked call wakes at least every Config.Poll (100 ms) to check the
// epoch and its context: go-redis honours a context's deadline (it sets
// ContextTimeoutEnabled) but not its cancellation, which is therefore
// noticed within Poll, and a loss is noticed within Poll too.
//
// # Faults
//
// A server that is down, or a connection that breaks, fails a call with
// exchange.ErrUnavailable after go-redis's own retries (by default 3
// retries and 5 dial attempts, about 1.7 s; Config.Options adjusts
// them). Every write is idempotent or deduplicated by readers (see
// package exchange), so the caller retries. A server restarted without
// persistence comes back empty: every call fails with an
// *exchange.EpochError until Recover. A server restarted with
// persistence restores its last snapshot, epoch included; Check compares
// the server's run_id (INFO server) with the one seen at Open or the last
// Recover and reports the restart as a loss, since the writes after the
// snapshot are gone. Run Redis with maxmemory-policy noeviction (the
// default): an evicted key is a silent loss that no epoch shows (a Get
// finds nothing, a reader's blob is gone and is reported as such).
//
// # Performance
//
// On the project's 2-core machine (docs/performance.md has the table and
// the commands), one peer calling one at a time: a 1 KB update costs
// about 50 µs to publish and 42 µs to read (about 20,000–24,000
// deltas/s, against 43,000 requests/s for redis-benchmark's SET and GET
// with one client: the epoch-checking script costs the server about
// 10 µs a call), a 1 MB update 3.2 ms and 4.1 ms (315 and 244 deltas/s,
// 330 and 256 MB/s), where the in-process store takes 1.3 and 2.1 ms —
// at 1 MB the update's codec is most of the cost.
//
// A server error of the kind a busy server gives (LOADING, BUSY, OOM,
// READONLY) is exchange.ErrUnavailable; a key of the wrong type
// (WRONGTYPE: something else wrote it) is exchange.ErrMalformed.
package redisx
