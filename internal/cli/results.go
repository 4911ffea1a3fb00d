package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	rep, err := readResults(*wsDir, files, env.Stdin)
	if err != nil {
		fmt.Fprintf(env.Stderr, "breaker results: %s\n", report.EscapeControls(err.Error()))
		return ExitError
	}
	if *format == "json" {
		err = writeResultsJSON(env.Stdout, rep)
	} else {
		err = writeResultsText(env.Stdout, rep)
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

// readResults reads the result files globs name inside the workspace dir,
// and standard input for "-".
func readResults(dir string, globs []string, stdin io.Reader) (testresult.Report, error) {
	var named []string
	fromStdin := false
	for _, g := range globs {
		if g == "-" {
			fromStdin = true
			continue
		}
		named = append(named, g)
	}
	var rep testresult.Report
	if len(named) > 0 {
		ws, err := workspace.Open(dir)
		if err != nil {
			return testresult.Report{}, err
		}
		defer ws.Close()
		ws.AllowNamedFilesAnywhere()
		if rep, err = ws.Results(named); err != nil {
			return rep, err
		}
	}
	if !fromStdin {
		return rep, nil
	}
	f := testresult.File{Path: "-"}
	lr := &io.LimitedReader{R: stdin, N: workspace.DefaultLimits.MaxFileBytes + 1}
	f.Result, f.Err = testresult.Parse(lr, testresult.FormatAuto)
	switch {
	case lr.N == 0:
		f.Result, f.Err = nil, fmt.Errorf("-: standard input is over the %s cap", workspace.Size(workspace.DefaultLimits.MaxFileBytes))
	case f.Err != nil:
		f.Result, f.Err = nil, fmt.Errorf("-: %w", f.Err)
	}
	return testresult.Merge(append(rep.Files, f), globs), nil
}

// fileFormat is the format a file was read as, also when it failed.
func fileFormat(f testresult.File) string {
	if f.Result != nil {
		return string(f.Result.Format)
	}
	var pe *testresult.ParseError
	if errors.As(f.Err, &pe) {
		return string(pe.Format)
	}
	return ""
}

type resultsJSON struct {
	Files  []fileJSON        `json:"files"`
	Counts testresult.Counts `json:"counts"`
	Tests  []testJSON        `json:"tests"`
	Infra  *string           `json:"infra"`
}

type fileJSON struct {
	Path     string   `json:"path"`
	Format   *string  `json:"format"`
	Error    *string  `json:"error"`
	Warnings []string `json:"warnings"`
}

type testJSON struct {
	Name    string    `json:"name"`
	Status  string    `json:"status"`
	Message *string   `json:"message"`
	Output  *string   `json:"output"`
	File    *string   `json:"file"`
	Line    *int      `json:"line"`
	Flaky   bool      `json:"flaky"`
	Runs    []runJSON `json:"runs"`
}

type runJSON struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
	Output  *string `json:"output"`
}

// writeResultsJSON writes the report as indented JSON, a test at a time:
// the document is the one json.MarshalIndent gives, without ever holding
// every test's JSON at once (200,000 tests held their copy, the marshalled
// text and the defused text: five times the parse's memory; issue 35).
func writeResultsJSON(w io.Writer, rep testresult.Report) error {
	out := resultsJSON{Files: []fileJSON{}, Counts: rep.Counts(), Tests: []testJSON{}}
	for _, f := range rep.Files {
		fj := fileJSON{Path: f.Path, Format: optional(fileFormat(f)), Warnings: []string{}}
		if f.Err != nil {
			fj.Error = optional(f.Err.Error())
		} else {
			fj.Warnings = append(fj.Warnings, f.Result.Warnings...)
		}
		out.Files = append(out.Files, fj)
	}
	out.Infra = optional(rep.Infra)
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	doc := string(data) + "\n"
	const empty = "\n  \"tests\": [],\n" // a key at the top level: no string holds it unescaped
	at := strings.Index(doc, empty)
	if len(rep.Tests) == 0 || at < 0 {
		_, err = io.WriteString(w, report.DefuseCommands(doc))
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	// Every piece ends at a line's end: DefuseCommands works a line at a
	// time, so defusing the pieces is defusing the document.
	bw.WriteString(report.DefuseCommands(doc[:at] + "\n  \"tests\": [\n"))
	for i, t := range rep.Tests {
		data, err := json.MarshalIndent(testOf(t), "    ", "  ")
		if err != nil {
			return err
		}
		end := ",\n"
		if i == len(rep.Tests)-1 {
			end = "\n"
		}
		bw.WriteString(report.DefuseCommands("    " + string(data) + end))
	}
	bw.WriteString(report.DefuseCommands("  ],\n" + doc[at+len(empty):]))
	return bw.Flush()
}

// testOf is one test as the JSON report writes it.
func testOf(t testresult.Test) testJSON {
	tj := testJSON{Name: t.FullName(), Status: string(t.Status), Message: optional(t.Message), Output: optional(t.Output),
		File: optional(t.File), Flaky: t.Flaky, Runs: []runJSON{}}
	if t.Line > 0 {
		tj.Line = &t.Line
	}
	for _, r := range t.Runs {
		tj.Runs = append(tj.Runs, runJSON{Status: string(r.Status), Message: optional(r.Message), Output: optional(r.Output)})
	}
	return tj
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
