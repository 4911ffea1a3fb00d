package cli

import (
	"context"
	"fmt"
)

// runDemo is being built in parallel; this placeholder is replaced before landing.
func runDemo(_ context.Context, env *Env, _ []string) int {
	fmt.Fprintln(env.Stderr, "breaker: demo.go not built yet")
	return ExitError
}
