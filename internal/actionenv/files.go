package actionenv

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/greenlight-ci/breaker/internal/rx"
)

// Output is one step output.
type Output struct {
	Name  string
	Value string
}

var outputNameRE = rx.Lazy(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// SetOutputs appends the outputs to the file at GITHUB_OUTPUT, each as a
// heredoc with a fresh random delimiter. A value (or name) that contains its
// delimiter is refused, as is a name that is not an identifier. Values are
// redacted.
func (a *Action) SetOutputs(outs []Output) error {
	var b strings.Builder
	for _, o := range outs {
		if !outputNameRE().MatchString(o.Name) {
			return fmt.Errorf("output name %q is not an identifier", o.Name)
		}
		value := a.Redact(o.Value)
		delim := "ghadelimiter_" + rand.Text()
		if strings.Contains(value, delim) {
			return fmt.Errorf("output %s contains its delimiter; refused", o.Name)
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", o.Name, delim, value, delim)
	}
	return a.appendFile("GITHUB_OUTPUT", b.String())
}

// MaxSummary is the largest step summary GitHub accepts: 1 MiB.
const MaxSummary = 1 << 20

// WriteSummary appends markdown to the step summary at GITHUB_STEP_SUMMARY,
// redacted and capped at MaxSummary bytes; a cut summary says so at its end.
func (a *Action) WriteSummary(markdown string) error {
	return a.appendFile("GITHUB_STEP_SUMMARY", CapSummary(a.Redact(markdown)))
}

// CapSummary returns markdown cut to at most MaxSummary bytes, at a rune
// boundary, with a last line saying how much was cut.
func CapSummary(markdown string) string {
	if len(markdown) <= MaxSummary {
		return markdown
	}
	// The note's length depends on the number it carries; size it with the
	// largest possible number, then fill in the real one.
	note := summaryNote(len(markdown))
	keep := MaxSummary - len(note)
	for keep > 0 && !utf8.RuneStart(markdown[keep]) {
		keep--
	}
	note = summaryNote(len(markdown) - keep)
	return markdown[:keep] + note
}

// appendFile appends s to the file named by the environment variable env.
func (a *Action) appendFile(env, s string) (err error) {
	path := a.getenv(env)
	if path == "" {
		return fmt.Errorf("%s is not set; run inside GitHub Actions", env)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", env, err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	if _, err := f.WriteString(s); err != nil {
		return fmt.Errorf("write %s: %w", env, err)
	}
	return nil
}

func summaryNote(cut int) string {
	return fmt.Sprintf("\n\n---\n**Summary truncated** at GitHub's 1 MiB step summary limit: the last %d bytes were cut. The JSON report (output report-json) has everything.\n", cut)
}
