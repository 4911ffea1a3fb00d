package cli

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/report"
)

// evaluateHelp names the policies from their registry (breaker.Policies).
var evaluateHelp = strings.Replace(evaluateHelpText, "{policies}", policyList(), 1)

// policyList is "greenlight (default), prp, bmad or liza".
func policyList() string {
	ps := breaker.Policies()
	ps[0] += " (default)"
	last := len(ps) - 1
	return strings.Join(ps[:last], ", ") + " or " + ps[last]
}

const evaluateHelpText = `Usage: breaker evaluate [flags]

Rebuild every attempt of the agent branch from its commit trailers, read this
run's test results and, with --ledger, what CI observed at every earlier
push; apply the circuit breaker rules (3 failed attempts on one test, 7 in a
slice, 3 failed pushes in a row) and print the verdict. Offline: no token, no
network. With the ledger CI read (breaker ledger), it judges as CI did.

Flags:
  --repo DIR              git work tree to read (default ".")
  --head REV              head of the agent branch (default HEAD)
  --base REV              base branch to fork from (default: origin/HEAD,
                          origin/main, origin/master, main or master)
  --slice ID              evaluate this slice (default: the newest attempt's)
  --results GLOB          test result files, relative to --repo; repeatable;
                          ** matches any depth; every format breaker results
                          reads, detected by content.
                          Without results the head's tests count as not run.
  --graph PATH            slice graph for the scope lock
                          (default .greenlight/GRAPH.json when present)
  --format FORMAT         text, markdown or json (default text)
  --force                 build the diagnostic whatever the counts (/gl-debug)
  --ledger FILE           CI's earlier observations: ledger entries as JSON
                          lines, oldest first (what breaker ledger prints)
  --ledger-key-file FILE  the ledger key: verify the entries' MACs; an entry
                          that does not verify trips ledger_tampered
  --policy NAME           {policies}: which
                          breaker of the seeds judges the same evidence
  --phase P               prp: RED, GREEN (default), REFACTOR or DOCUMENT,
                          when no commit has a PRP-Phase trailer
  --threshold N           bmad: consecutive failed pushes that trigger
                          (1-99, default 5)
  --trailer-prefix P      trailer key prefix (default "Greenlight-")
  --tag-prefix P          tag prefix for checkpoint and reset tags
                          (default "greenlight/")

The json format is the stable interface "greenlight-breaker/v1" (see README).

Environment:
  SOURCE_DATE_EPOCH       seconds since 1970: the time this run's observation
                          is recorded at (default: now), for reproducible output

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
	ledgerFile := fs.String("ledger", "", "")
	policy := fs.String("policy", breaker.PolicyGreenlight, "")
	fs.StringVar(&opts.Phase, "phase", "", "")
	fs.IntVar(&opts.Threshold, "threshold", breaker.DefaultThreshold, "")
	keyFile := fs.String("ledger-key-file", "", "")
	if code, ok := parseFlags(fs, args, evaluateHelp, env); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "breaker evaluate: unexpected argument %q; results go in --results\n", fs.Arg(0))
		return ExitUsage
	}
	evaluateGC(env)
	if !validFormat(*format) {
		fmt.Fprintf(env.Stderr, "breaker evaluate: --format %q: want text, markdown or json\n", *format)
		return ExitUsage
	}
	if err := checkPolicy(*policy, opts.Phase, opts.Threshold); err != nil {
		fmt.Fprintf(env.Stderr, "breaker evaluate: %v\n", err)
		return ExitUsage
	}
	if err := checkNames(opts.Slice, trailerPrefix, tagPrefix); err != nil {
		fmt.Fprintf(env.Stderr, "breaker evaluate: %v\n", err)
		return ExitUsage
	}
	if v := env.Getenv("SOURCE_DATE_EPOCH"); v != "" {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs < 0 || secs > 253402300799 {
			fmt.Fprintf(env.Stderr, "breaker evaluate: SOURCE_DATE_EPOCH=%q: want whole seconds since 1970 (e.g. $(git log -1 --format=%%ct)), or unset it\n", report.SafeLine(v))
			return ExitUsage
		}
		opts.Run.ObservedAt = time.Unix(secs, 0).UTC()
	}
	opts.Results = results
	opts.NamedResultsAnywhere = true // the user's own files, named on the command line
	var err error
	if opts.Ledger, err = evaluate.ReadLedgerFiles(*ledgerFile, *keyFile); err != nil {
		fmt.Fprintf(env.Stderr, "breaker evaluate: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	opts.Policy = breaker.DefaultPolicy()
	opts.Policy.TrailerPrefix, opts.Policy.TagPrefix = trailerPrefix, tagPrefix
	opts.Policy.Name = *policy
	snap, err := evaluate.Load(ctx, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker evaluate: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	if known := snap.KnownSlices(); opts.Slice != "" && !slices.Contains(known, opts.Slice) {
		fmt.Fprintf(env.Stderr, "breaker evaluate: --slice %s: no commit trailer, branch name, ledger entry or slice graph here names it (known: %s); check the id, or leave --slice out to judge the newest attempt's slice\n",
			opts.Slice, report.SafeLine(strings.Join(known, ", ")))
		return ExitUsage
	}
	code := printDecision(env, snap.Decide(snap.LocalRefs()), *format)
	// A named result file that could not be read, or was read in part, is
	// the verdict of a push without (all of) its results, as CI would judge
	// it, and never a success: an OPEN verdict keeps its 42, anything else
	// exits 1 with the file and the fix.
	if err := unreadResults(snap.ResultFiles()); err != nil {
		fmt.Fprintf(env.Stderr, "breaker evaluate: %s\n", report.SafeLine(err.Error()))
		if code == ExitClosed {
			code = ExitError
		}
	}
	return code
}

// checkPolicy validates the policy and its tuning, with the rules the
// Action applies to its inputs.
func checkPolicy(policy, phase string, threshold int) error {
	var errs []error
	if err := breaker.CheckPolicy(policy); err != nil {
		errs = append(errs, fmt.Errorf("--policy: %w", err))
	}
	if phase != "" {
		if err := breaker.CheckPhase(phase); err != nil {
			errs = append(errs, fmt.Errorf("--phase: %w", err))
		}
	}
	if err := breaker.CheckThreshold(threshold); err != nil {
		errs = append(errs, fmt.Errorf("--threshold: %w", err))
	}
	return errors.Join(errs...)
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

// evaluateGCPercent is the garbage collector's target for a breaker
// evaluate run (GOGC's default is 100).
const evaluateGCPercent = 200

// evaluateGC sets the garbage collector's target for a command that reads
// history, decides and exits (evaluate), unless GOGC is set: at twice the
// default target heap, a history read 30,000 commits behind its base with
// a commit-graph spends a fifth less CPU for the same peak (bench/run.sh).
// breaker action, on one processor and waiting on GitHub, keeps the
// default (runAction).
func evaluateGC(env *Env) {
	if env.Getenv("GOGC") == "" {
		debug.SetGCPercent(evaluateGCPercent)
	}
}
