package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/report"
	"github.com/greenlight-ci/breaker/internal/testresult"
	"github.com/greenlight-ci/breaker/internal/workspace"
)

// resultsHelp names the formats from testresult.Formats, the one table of
// them.
var resultsHelp = strings.Replace(resultsHelpText, "{formats}", testresult.FormatTitles("and"), 1)

const resultsHelpText = `Usage: breaker results [--format text|json] [--workspace DIR] FILE|GLOB|-...

Print what the breaker reads from test result files: each file and its
format, the counts, every test with its status and failure message, and
whether the run is infra (the tests did not run: a build failure, no file
matched, zero tests, a test binary that crashed before any test).

Formats are detected from the content:
{formats}.
GLOB may use ** to cross directories (quote it from the shell). Paths are
relative to the workspace; a glob outside it, or a symlink that leads
elsewhere, is refused unread; a file named in full may lie anywhere. Each
file is capped at 64 MiB and all files together at 256 MiB; each test's
message and output at 64 KiB. - reads standard input.
Flags may come before or after the files.

Flags:
  --format text|json   output format (default text). The text escapes
                       control characters and never starts a line with "::";
                       json prints {"files":[{"path","format","error",
                       "warnings"}],"counts":{"total","passed","failed",
                       "errored","skipped"},"tests":[{"name","status",
                       "message","output","file","line","flaky","runs"}],
                       "infra":null or the reason}; absent values are null
  --workspace DIR      the directory result files are read from (default .)

Exit codes:
  0  every file was read (the run may still be infra: see "infra")
  1  a file could not be read, or no file matched; what was read is printed
  2  usage error
`

// runResults is `breaker results`.
func runResults(_ context.Context, env *Env, args []string) int {
	fs := newFlags("results")
	format := fs.String("format", "text", "")
	wsDir := fs.String("workspace", ".", "")
	files, code, ok := parseInterspersed(fs, args, resultsHelp, env)
	if !ok {
		return code
	}
	switch {
	case *format != "text" && *format != "json":
		fmt.Fprintf(env.Stderr, "breaker results: --format must be text or json, not %q; run 'breaker results --help' for usage\n", *format)
		return ExitUsage
	case len(files) == 0:
		fmt.Fprintln(env.Stderr, "breaker results: name at least one result FILE or GLOB, or - for standard input; run 'breaker results --help' for usage")
		return ExitUsage
	}
	rep, err := workspace.ReadNamed(*wsDir, files, env.Stdin)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker results: %s\n", report.EscapeControls(err.Error()))
		return ExitError
	}
	if *format == "json" {
		err = report.WriteResultsJSON(env.Stdout, rep)
	} else {
		err = report.WriteResultsText(env.Stdout, rep)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker results: writing: %v\n", err)
		return ExitError
	}
	if len(rep.Files) == 0 || workspace.Unreadable(rep) != nil {
		return ExitError
	}
	if err := malformedResults(rep.Files); err != nil {
		fmt.Fprintf(env.Stderr, "breaker results: %s\n", report.SafeLine(err.Error()))
		return ExitError
	}
	return ExitClosed
}

// malformedResults is the first result file read in part: one that ends
// in the middle of a record, or holds a broken one (testresult.Result
// Malformed), named with its line and the fix.
func malformedResults(files []testresult.File) error {
	for _, f := range files {
		if f.Result != nil && f.Result.Malformed != nil {
			m := f.Result.Malformed
			return fmt.Errorf("%s: line %d: %s; write the file again (re-run the tests)", f.Path, m.Line, m.Msg)
		}
	}
	return nil
}

// unreadResults is the first named result file that could not be read at
// all (missing, not a result format), with the fix; then a file read in
// part (malformedResults).
func unreadResults(files []testresult.File) error {
	for _, f := range files {
		if f.Err != nil {
			return fmt.Errorf("--results: %v: name the files the tests wrote (a CI run would count this push as failed, without results)", f.Err)
		}
	}
	return malformedResults(files)
}
