package cli

import (
	"context"
	"fmt"
)

// runTrailers is being built in parallel; this placeholder is replaced before landing.
func runTrailers(_ context.Context, env *Env, _ []string) int {
	fmt.Fprintln(env.Stderr, "breaker: trailers.go not built yet")
	return ExitError
}
