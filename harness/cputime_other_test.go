//go:build !unix

package harness_test

import "time"

// cpuTime is 0 where getrusage is missing: BenchmarkScale's cpu-s/vs
// then reads 0.
func cpuTime() time.Duration { return 0 }
