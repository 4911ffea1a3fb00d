package cli

import (
	"context"
	"fmt"
)

// runProtocol is being built in parallel; this placeholder is replaced before landing.
func runProtocol(_ context.Context, env *Env, _ []string) int {
	fmt.Fprintln(env.Stderr, "breaker: protocol.go not built yet")
	return ExitError
}
