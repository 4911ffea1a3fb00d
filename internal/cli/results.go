package cli

import (
	"context"
	"fmt"
)

// runResults is being built in parallel; this placeholder is replaced before landing.
func runResults(_ context.Context, env *Env, _ []string) int {
	fmt.Fprintln(env.Stderr, "breaker: results.go not built yet")
	return ExitError
}
