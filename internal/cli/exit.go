package cli

// Exit codes of every breaker command. They are a public interface.
const (
	ExitClosed  = 0  // the breaker is CLOSED, or the command succeeded
	ExitError   = 1  // an error: bad input, unreadable repository or results
	ExitUsage   = 2  // a usage error: unknown command or flag
	ExitTripped = 42 // the breaker is OPEN
)
