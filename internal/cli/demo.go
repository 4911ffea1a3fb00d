package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/demo"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/report"
)

const demoHelp = `Usage: breaker demo [--format text|markdown|json] [--keep]

Build a throw-away git repository in which an agent spirals on one test:
three failed attempts on TestRegister_DuplicateEmail with three different
strategies, the last one editing a file outside its slice. Evaluate it
exactly as CI would and print the verdict (text by default, as evaluate;
--format markdown prints the pull request comment).
The repository is removed afterwards unless --keep is given.

Flags:
  --format FORMAT   text, markdown or json (default text)
  --keep            keep the demo repository and print its path on stderr

` + exitCodesHelp

func runDemo(ctx context.Context, env *Env, args []string) int {
	fs := newFlags("demo")
	format := fs.String("format", "text", "")
	keep := fs.Bool("keep", false, "")
	if code, ok := parseFlags(fs, args, demoHelp, env); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(env.Stderr, "breaker demo: takes no arguments; run 'breaker demo --help'")
		return ExitUsage
	}
	if !validFormat(*format) {
		fmt.Fprintf(env.Stderr, "breaker demo: --format %q: want text, markdown or json\n", *format)
		return ExitUsage
	}
	dir, err := os.MkdirTemp("", "breaker-demo-")
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker demo: %v\n", err)
		return ExitError
	}
	if *keep {
		fmt.Fprintf(env.Stderr, "breaker demo: repository kept at %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	if err := demo.Build(dir); err != nil {
		fmt.Fprintf(env.Stderr, "breaker demo: %v\n", err)
		return ExitError
	}
	snap, err := evaluate.Load(ctx, evaluate.Options{
		RepoDir: dir, Head: demo.Branch, Base: "master", Results: []string{"go-test.json"},
		Policy: breaker.DefaultPolicy(),
		// CI observes the head an hour after the first commit: a fixed
		// time, so the demo prints the same report every time.
		Run: evaluate.Run{ObservedAt: time.Date(2026, 2, 18, 10, 10, 0, 0, time.UTC), Event: "push"},
	})
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker demo: %v\n", err)
		return ExitError
	}
	return printDecision(env, snap.Decide(snap.LocalRefs()), *format)
}

// printDecision renders d in format on stdout and returns the exit code of its state.
func printDecision(env *Env, d breaker.Decision, format string) int {
	switch format {
	case "json":
		b, err := report.JSONVersion(d, Version)
		if err != nil {
			fmt.Fprintf(env.Stderr, "breaker: render json: %v\n", err)
			return ExitError
		}
		// As it is: every line of the report is indentation and a JSON
		// token (strings escape their line breaks, and "##[" is written
		// #\u0023[), so no line is a workflow command (FuzzRenderers).
		env.Stdout.Write(b)
	case "markdown":
		io.WriteString(env.Stdout, report.DefuseCommands(report.Markdown(d, report.Options{})))
	default:
		io.WriteString(env.Stdout, report.DefuseCommands(report.Text(d)))
	}
	return ExitCode(&d, true, nil)
}

func validFormat(f string) bool { return f == "text" || f == "markdown" || f == "json" }
