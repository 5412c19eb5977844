package grpcnet

import "time"

// WithMinPingInterval returns c with the server's keepalive enforcement
// interval set to d, so that a test can check the policy in milliseconds.
func WithMinPingInterval(c Config, d time.Duration) Config {
	c.minPing = d
	return c
}

// WithClock returns c with the open rate limiter reading time from now,
// so that a test can refill its bucket without waiting.
func WithClock(c Config, now func() time.Time) Config {
	c.now = now
	return c
}
