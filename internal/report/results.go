package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/testresult"
)

// The result files as `breaker results` prints them: for a person (text)
// or a program (JSON, docs/cli.md), untrusted text escaped and workflow
// commands defused.

// WriteResultsText prints a report for a person: the files, the counts, the
// infra verdict, then every test, with the message of each failing one.
// Everything that came from a result file goes through EscapeControls,
// and the whole text through DefuseCommands.
func WriteResultsText(w io.Writer, rep testresult.Report) error {
	var b strings.Builder
	for _, f := range rep.Files {
		switch {
		case f.Err != nil:
			fmt.Fprintf(&b, "file %s: error: %s\n", EscapeControls(f.Path), EscapeControls(f.Err.Error()))
		default:
			fmt.Fprintf(&b, "file %s: %s, %d tests\n", EscapeControls(f.Path), fileFormat(f), len(f.Result.Tests))
			for _, warn := range f.Result.Warnings {
				fmt.Fprintf(&b, "  warning: %s\n", EscapeControls(warn))
			}
		}
	}
	c := rep.Counts()
	fmt.Fprintf(&b, "%d tests: %d passed, %d failed, %d errored, %d skipped\n", c.Total, c.Passed, c.Failed, c.Errored, c.Skipped)
	if rep.Infra != "" {
		fmt.Fprintf(&b, "infra: %s (the tests did not run; the breaker does not count this run)\n", EscapeControls(rep.Infra))
	} else {
		b.WriteString("infra: no\n")
	}
	for _, t := range rep.Tests {
		writeTestText(&b, t)
	}
	_, err := io.WriteString(w, DefuseCommands(b.String()))
	return err
}

func writeTestText(b *strings.Builder, t testresult.Test) {
	fmt.Fprintf(b, "%-5s %s", statusWord(t.Status), EscapeControls(t.FullName()))
	if t.File != "" {
		fmt.Fprintf(b, " (%s", EscapeControls(t.File))
		if t.Line > 0 {
			fmt.Fprintf(b, ":%d", t.Line)
		}
		b.WriteString(")")
	}
	if t.Flaky {
		fmt.Fprintf(b, " [flaky: passed after %d runs]", len(t.Runs))
	}
	b.WriteString("\n")
	if t.Status == breaker.StatusSkip && t.Message != "" {
		// Why it was skipped, on one line.
		first, _, _ := strings.Cut(strings.TrimSpace(t.Message), "\n")
		fmt.Fprintf(b, "      | %s\n", EscapeControls(Clip(first, 300)))
		return
	}
	if !t.Status.Failed() || t.Message == "" {
		return
	}
	for line := range strings.Lines(strings.TrimRight(t.Message, "\n")) {
		fmt.Fprintf(b, "      | %s\n", EscapeControls(strings.TrimRight(line, "\r\n")))
	}
}

func statusWord(s breaker.TestStatus) string {
	return strings.ToUpper(string(s))
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

// WriteResultsJSON writes the report as indented JSON, a test at a time:
// the document is the one json.MarshalIndent gives, without ever holding
// every test's JSON at once (200,000 tests held their copy, the marshalled
// text and the defused text: five times the parse's memory; issue 35).
func WriteResultsJSON(w io.Writer, rep testresult.Report) error {
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
		_, err = io.WriteString(w, DefuseCommands(doc))
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	// Every piece ends at a line's end: DefuseCommands works a line at a
	// time, so defusing the pieces is defusing the document.
	bw.WriteString(DefuseCommands(doc[:at] + "\n  \"tests\": [\n"))
	for i, t := range rep.Tests {
		data, err := json.MarshalIndent(testOf(t), "    ", "  ")
		if err != nil {
			return err
		}
		end := ",\n"
		if i == len(rep.Tests)-1 {
			end = "\n"
		}
		bw.WriteString(DefuseCommands("    " + string(data) + end))
	}
	bw.WriteString(DefuseCommands("  ],\n" + doc[at+len(empty):]))
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
