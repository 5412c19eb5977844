//go:build unix

package harness

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f, failing at once if another open
// file holds one; the lock ends when f is closed or the process dies.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
