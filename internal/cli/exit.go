package cli

import "github.com/greenlight-ci/breaker/internal/breaker"

// Exit codes of every breaker command. They are a public interface.
const (
	ExitClosed  = 0  // the breaker is CLOSED, or the command succeeded
	ExitError   = 1  // an error: bad input, unreadable repository or results
	ExitUsage   = 2  // a usage error: unknown command or flag
	ExitTripped = 42 // the breaker is OPEN
)

// ExitCode is the one place a run's end becomes the process exit code: an
// error is 1; an OPEN decision that the run enforces is 42; anything else,
// including the pull cord's and a reset's OPEN diagnostic, is 0.
func ExitCode(d *breaker.Decision, enforce bool, err error) int {
	switch {
	case err != nil:
		return ExitError
	case d != nil && enforce && d.State == breaker.StateOpen:
		return ExitTripped
	}
	return ExitClosed
}
