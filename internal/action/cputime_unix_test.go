//go:build unix

package action_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU so far: benchmarks report
// CPU, never wall time, on these shared machines.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
