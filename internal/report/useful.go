package report

import (
	"strings"

	"github.com/greenlight-ci/breaker/internal/rx"
)

// maxUsefulLines bounds the lines UsefulLines keeps.
const maxUsefulLines = 12

// stackFrame matches the lines a reader skips: JavaScript and Python stack
// frames, Go goroutine traces and runtime frames, frames inside
// node_modules or the runners' own internals.
var stackFrame = rx.Lazy(`^\s*(at |File "|goroutine \d+|created by |\S+\.go:\d+ \+0x|.*node_modules/|.*node:internal/|\(Use .node --trace|.*jest-circus|.*_pytest/)`)

// UsefulLines cuts CI's failure output to the lines that say what failed, as
// each runner writes them: Jest's and Vitest's Expected/Received, pytest's
// "E" lines and assertion, Go's "got/want" message, mocha's diff — the
// first line, then lines that state an expectation, a value or a diff, no
// stack frames. cut reports whether anything was left out (the caller
// folds the full output below).
func UsefulLines(out string) (useful string, cut bool) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) <= 4 {
		return out, false
	}
	var keep []string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "" || stackFrame().MatchString(l):
			continue
		case i == 0, usefulLine(t):
			keep = append(keep, strings.TrimRight(l, " \t"))
		}
		if len(keep) == maxUsefulLines {
			break
		}
	}
	if len(keep) == 0 {
		return out, false
	}
	return strings.Join(keep, "\n"), len(keep) < len(lines)
}

// usefulLine says whether a line states an expectation, a value, an
// assertion or a diff.
func usefulLine(t string) bool {
	l := strings.ToLower(t)
	for _, w := range []string{"expected", "received", "expect(", "assert", "want", "got", "error", "actual", "!=", "=="} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return strings.HasPrefix(t, "E ") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "+ ") ||
		strings.HasPrefix(t, "> ") || t == "-" || t == "+"
}
