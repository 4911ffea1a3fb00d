package cli

import (
	"context"
	"fmt"
)

// runEvaluate is being built in parallel; this placeholder is replaced before landing.
func runEvaluate(_ context.Context, env *Env, _ []string) int {
	fmt.Fprintln(env.Stderr, "breaker: evaluate.go not built yet")
	return ExitError
}
