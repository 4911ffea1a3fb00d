package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/report"
	"github.com/greenlight-ci/breaker/internal/testresult"
)

// writeResultsText prints a report for a person: the files, the counts, the
// infra verdict, then every test, with the message of each failing one.
// Everything that came from a result file goes through report.EscapeControls,
// and the whole text through report.DefuseCommands.
func writeResultsText(w io.Writer, rep testresult.Report) error {
	var b strings.Builder
	for _, f := range rep.Files {
		switch {
		case f.Err != nil:
			fmt.Fprintf(&b, "file %s: error: %s\n", report.EscapeControls(f.Path), report.EscapeControls(f.Err.Error()))
		default:
			fmt.Fprintf(&b, "file %s: %s, %d tests\n", report.EscapeControls(f.Path), fileFormat(f), len(f.Result.Tests))
			for _, warn := range f.Result.Warnings {
				fmt.Fprintf(&b, "  warning: %s\n", report.EscapeControls(warn))
			}
		}
	}
	c := rep.Counts()
	fmt.Fprintf(&b, "%d tests: %d passed, %d failed, %d errored, %d skipped\n", c.Total, c.Passed, c.Failed, c.Errored, c.Skipped)
	if rep.Infra != "" {
		fmt.Fprintf(&b, "infra: %s (the tests did not run; the breaker does not count this run)\n", report.EscapeControls(rep.Infra))
	} else {
		b.WriteString("infra: no\n")
	}
	for _, t := range rep.Tests {
		writeTestText(&b, t)
	}
	_, err := io.WriteString(w, report.DefuseCommands(b.String()))
	return err
}

func writeTestText(b *strings.Builder, t testresult.Test) {
	fmt.Fprintf(b, "%-5s %s", statusWord(t.Status), report.EscapeControls(t.FullName()))
	if t.File != "" {
		fmt.Fprintf(b, " (%s", report.EscapeControls(t.File))
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
		fmt.Fprintf(b, "      | %s\n", report.EscapeControls(report.Clip(first, 300)))
		return
	}
	if !t.Status.Failed() || t.Message == "" {
		return
	}
	for line := range strings.Lines(strings.TrimRight(t.Message, "\n")) {
		fmt.Fprintf(b, "      | %s\n", report.EscapeControls(strings.TrimRight(line, "\r\n")))
	}
}

func statusWord(s breaker.TestStatus) string {
	return strings.ToUpper(string(s))
}
