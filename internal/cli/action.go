package cli

import (
	"context"
	"fmt"
)

// runAction is being built in parallel; this placeholder is replaced before landing.
func runAction(_ context.Context, env *Env, _ []string) int {
	fmt.Fprintln(env.Stderr, "breaker: action.go not built yet")
	return ExitError
}
