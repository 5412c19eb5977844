//go:build !unix

package harness

import "os"

// lockFile does nothing where flock is not available: two coordinators
// must not be started on one journal.
func lockFile(*os.File) error { return nil }
