// Package exchangetest tests implementations of exchange.Store.
//
// Run is the conformance suite that every store passes — the in-process
// exchange.Memory and package redisx's Redis client alike (in the manner
// of hashicorp/raft's transport tests: one suite, every implementation).
// It checks the Store contract (values, counting sets, topics, limits,
// names, contexts, Close, a loss of the store's data and Recover) and the
// Peer's behaviour over the store (updates through slots, blobs, keys and
// topics; dedup; invalid updates and malformed stored bytes refused with
// errors naming the key; a loss reported and recovered from, including a
// store restarted in the middle of a peer-to-peer run, after which no peer
// has applied any update twice).
//
// Update, Value and CheckUpdate make and check the suite's updates: dense
// deltas of dyadic rationals, so that their sums are exact in any order.
package exchangetest
