package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/report"
)

const evaluateHelp = `Usage: breaker evaluate [flags]

Rebuild every attempt of the agent branch from its commit trailers, read this
run's test results, apply the circuit breaker rules (3 failed attempts on one
test, or 7 in a slice) and print the verdict. Offline: no token, no network.

Flags:
  --repo DIR              git work tree to read (default ".")
  --head REV              head of the agent branch (default HEAD)
  --base REV              base branch to fork from (default: origin/HEAD,
                          origin/main, origin/master, main or master)
  --slice ID              evaluate this slice (default: the newest attempt's)
  --results GLOB          test result files, relative to --repo; repeatable;
                          ** matches any depth. JUnit XML, go test -json, TAP.
                          Without results the head's tests count as not run.
  --graph PATH            slice graph for the scope lock
                          (default .greenlight/GRAPH.json when present)
  --format FORMAT         text, markdown or json (default text)
  --force                 build the diagnostic whatever the counts (/gl-debug)
  --trailer-prefix P      trailer key prefix (default "Greenlight-")
  --tag-prefix P          tag prefix for checkpoint and reset tags
                          (default "greenlight/")

The json format is the stable interface "greenlight-breaker/v1" (see README).

` + exitCodesHelp

func runEvaluate(ctx context.Context, env *Env, args []string) int {
	fs := newFlags("evaluate")
	var opts evaluate.Options
	var results stringList
	var trailerPrefix, tagPrefix string
	fs.StringVar(&opts.RepoDir, "repo", ".", "")
	fs.StringVar(&opts.Head, "head", "", "")
	fs.StringVar(&opts.Base, "base", "", "")
	fs.StringVar(&opts.Slice, "slice", "", "")
	fs.Var(&results, "results", "")
	fs.StringVar(&opts.Graph, "graph", "", "")
	fs.BoolVar(&opts.Force, "force", false, "")
	fs.StringVar(&trailerPrefix, "trailer-prefix", breaker.DefaultTrailerPrefix, "")
	fs.StringVar(&tagPrefix, "tag-prefix", breaker.DefaultTagPrefix, "")
	format := fs.String("format", "text", "")
	if code, ok := parseFlags(fs, args, evaluateHelp, env); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "breaker evaluate: unexpected argument %q; results go in --results\n", fs.Arg(0))
		return ExitUsage
	}
	if !validFormat(*format) {
		fmt.Fprintf(env.Stderr, "breaker evaluate: --format %q: want text, markdown or json\n", *format)
		return ExitUsage
	}
	if err := checkNames(opts.Slice, trailerPrefix, tagPrefix); err != nil {
		fmt.Fprintf(env.Stderr, "breaker evaluate: %v\n", err)
		return ExitUsage
	}
	opts.Results = results
	opts.Policy = breaker.DefaultPolicy()
	opts.Policy.TrailerPrefix, opts.Policy.TagPrefix = trailerPrefix, tagPrefix
	snap, err := evaluate.Load(ctx, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker evaluate: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	return printDecision(env, snap.Decide(snap.LocalRefs()), *format)
}

// checkNames validates the names a user chose with the rules the Action
// applies to its inputs (internal/breaker), flag by flag.
func checkNames(slice, trailerPrefix, tagPrefix string) error {
	var errs []error
	if slice != "" {
		if err := breaker.CheckSlice(slice); err != nil {
			errs = append(errs, fmt.Errorf("--slice: %w", err))
		}
	}
	if err := breaker.CheckTrailerPrefix(trailerPrefix); err != nil {
		errs = append(errs, fmt.Errorf("--trailer-prefix: %w", err))
	}
	if err := breaker.CheckTagPrefix(tagPrefix); err != nil {
		errs = append(errs, fmt.Errorf("--tag-prefix: %w", err))
	}
	return errors.Join(errs...)
}
