package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// newReport maps d to its JSON shape. It does not redact: JSON does.
func newReport(d breaker.Decision) Report {
	detail := policyJSON(d)
	r := Report{
		Schema:              Schema,
		Policy:              d.Policy,
		State:               string(d.State),
		Tripped:             d.Tripped,
		TripReason:          nullable(string(d.TripReason)),
		TrippedTest:         nullable(d.TrippedTest),
		Slice:               d.Slice,
		SliceSource:         d.SliceSource,
		Head:                d.Head,
		Base:                ReportBase{Ref: d.Base.Ref, SHA: nullable(d.Base.SHA), Source: d.Base.Source},
		HeadInfra:           nullable(d.HeadInfra),
		Limits:              ReportLimits{PerTest: d.Limits.PerTest, Slice: d.Limits.Slice, NoProgress: d.Limits.NoProgress},
		TotalFailedAttempts: d.TotalFailed,
		Checkpoint:          reportCheckpoint(d.Checkpoint),
		Reset:               nullable(d.ResetSHA),
		Scope:               ReportScope{Enabled: d.Scope.Enabled, Source: d.Scope.Source, Note: d.Scope.Note},
		ScopeViolations:     reportFindings(d.Violations),
		Misreports:          reportMisreports(d.Misreports),
		Tests:               reportTests(d.Tests),
		PriorAttempts:       reportAttempts(d.Prior),
		Diagnostics:         reportDiagnostics(d.Diagnostics),
		PolicyState:         policyState(d),
		PolicyDetail:        detail,
		Pushes:              reportPushes(d.Pushes),
		EarlierPushes:       ReportEarlier{Observed: d.Earlier.Pushes, Failed: d.Earlier.Failed, Attempts: d.Earlier.Attempts, FailedAttempts: d.Earlier.FailedAttempts},
		Ledger:              reportLedger(d.Ledger),
		Notes:               nonNil(d.Notes),
	}
	// The schema's per-policy keys hold the same object, under the key of
	// the policy that ran.
	if d.Detail != nil {
		switch d.Detail.PolicyName() {
		case breaker.PolicyPRP:
			r.PRP = detail
		case breaker.PolicyBMAD:
			r.BMAD = detail
		case breaker.PolicyLiza:
			r.Liza = detail
		}
	}
	return r
}

// nullable returns nil for "" so that an absent value renders as null.
func reportPushes(ps []breaker.PushSummary) []ReportPush {
	out := make([]ReportPush, 0, len(ps))
	for _, p := range ps {
		rp := ReportPush{Head: p.Head, Source: p.Source, Infra: nullable(p.Infra), Failed: p.Failed,
			Progress: p.Progress, Counted: p.Counted, Prior: p.Prior, Declared: p.Declared,
			Failing: nonNil(p.Failing), Vanished: nonNil(p.Vanished)}
		if !p.ObservedAt.IsZero() {
			rp.ObservedAt = nullable(p.ObservedAt.UTC().Format(time.RFC3339))
		}
		out = append(out, rp)
	}
	return out
}

// policyState is the state in the policy's words; greenlight's are its
// states.
func policyState(d breaker.Decision) string {
	if d.PolicyState != "" {
		return d.PolicyState
	}
	return string(d.State)
}

func reportLedger(l breaker.LedgerInfo) ReportLedger {
	src := l.Source
	if src == "" {
		src = "none"
	}
	return ReportLedger{Entries: l.Entries, Folded: l.Folded, Signed: l.Signed, Verified: l.Verified, Source: src, Tampered: nonNil(l.Tampered)}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nonNil returns s, or an empty slice for nil, so that it renders as [].
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func reportCheckpoint(c breaker.Checkpoint) ReportCheckpoint {
	return ReportCheckpoint{Tag: c.Tag, SHA: c.SHA, Exists: c.Exists, ExistingSHA: nullable(c.ExistingSHA)}
}

func reportFindings(fs []breaker.ScopeFinding) []ReportFinding {
	out := make([]ReportFinding, 0, len(fs))
	for _, f := range fs {
		out = append(out, ReportFinding{
			File: f.File, SHA: f.SHA, Test: f.Test, Justification: f.Justification, Verdict: f.Verdict,
		})
	}
	return out
}

func reportMisreports(ms []breaker.Misreport) []ReportMisreport {
	out := make([]ReportMisreport, 0, len(ms))
	for _, m := range ms {
		out = append(out, ReportMisreport{SHA: m.SHA, Test: m.Test, Claimed: m.Claimed, Observed: string(m.Observed)})
	}
	return out
}

func reportTests(ts []breaker.TestSummary) []ReportTest {
	out := make([]ReportTest, 0, len(ts))
	for _, t := range ts {
		out = append(out, ReportTest{
			Name: t.Name, FailedAttempts: t.FailedAttempts, Status: t.Status, Attempts: reportAttempts(t.Attempts),
		})
	}
	return out
}

func reportAttempts(as []breaker.Attempt) []ReportAttempt {
	out := make([]ReportAttempt, 0, len(as))
	for _, a := range as {
		out = append(out, ReportAttempt{
			Number: a.Number, SHA: a.SHA, Test: a.Test, Strategy: a.Strategy,
			Files: paths(a.Files), Changes: reportChanges(a.Files),
			Result: string(a.Result), ResultSource: string(a.Source),
			Error: a.Error, AgentError: a.AgentError, Claimed: nullable(a.Claimed),
			Misreported: a.Misreported, Hypothesis: a.Hypothesis, Question: a.Question,
		})
	}
	return out
}

func paths(fs []breaker.FileChange) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

func reportChanges(fs []breaker.FileChange) []ReportFileChange {
	out := make([]ReportFileChange, 0, len(fs))
	for _, f := range fs {
		out = append(out, ReportFileChange{Path: f.Path, Change: string(f.Change), From: nullable(f.From)})
	}
	return out
}

func reportDiagnostics(ds []breaker.Diagnostic) []ReportDiagnostic {
	out := make([]ReportDiagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, ReportDiagnostic{
			Test:                    d.Test,
			TestExpectation:         d.TestExpectation,
			ActualError:             d.ActualError,
			AttemptLog:              reportLog(d.AttemptLog),
			CumulativeFilesModified: reportTouches(d.CumulativeFiles),
			ScopeViolations:         reportFindings(d.ScopeViolations),
			BestHypothesis:          d.BestHypothesis,
			SpecificQuestion:        d.SpecificQuestion,
			RecoveryOptions:         reportRecovery(d.RecoveryOptions),
		})
	}
	return out
}

func reportLog(es []breaker.LogEntry) []ReportLogEntry {
	out := make([]ReportLogEntry, 0, len(es))
	for _, e := range es {
		out = append(out, ReportLogEntry{
			Attempt: e.Attempt, SHA: e.SHA, Strategy: e.Strategy, Files: nonNil(e.Files), Result: e.Result,
		})
	}
	return out
}

func reportTouches(ts []breaker.FileTouch) []ReportFileTouch {
	out := make([]ReportFileTouch, 0, len(ts))
	for _, t := range ts {
		out = append(out, ReportFileTouch{File: t.Path, Change: string(t.Change), Attempts: nonNil(t.Attempts)})
	}
	return out
}

func reportRecovery(rs []breaker.RecoveryOption) []ReportRecovery {
	out := make([]ReportRecovery, 0, len(rs))
	for _, r := range rs {
		out = append(out, ReportRecovery{Option: r.Option, Risk: r.Risk, Command: nullable(r.Command)})
	}
	return out
}

// JSON renders d as the indented JSON report, ending in a newline. Every
// string is redacted of token patterns and our marker is neutralised (call
// Redactor.Decision first to hide known secret values too); otherwise text
// is exact. DEL, C1 control characters and the "##[" of legacy workflow commands
// are written as \u escapes, so printing the report can drive neither a
// terminal nor the Actions runner.
func JSON(d breaker.Decision) ([]byte, error) { return JSONVersion(d, "") }

// JSONVersion is JSON with the version of the breaker that decided in the
// report's "version" field ("" reads as "dev").
func JSONVersion(d breaker.Decision, version string) ([]byte, error) {
	rep := newReport((*Redactor)(nil).Decision(d))
	rep.Version = version
	if rep.Version == "" {
		rep.Version = "dev"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return nil, fmt.Errorf("encode report: %w", err)
	}
	out := buf.Bytes()
	if bytes.Contains(out, []byte("##[")) {
		out = bytes.ReplaceAll(out, []byte("##["), []byte(`#\u0023[`))
	}
	return escapeControls(out), nil
}

// escapeControls rewrites DEL and the UTF-8 encodings of U+0080–U+009F as
// JSON \u escapes (encoding/json already escapes C0). encoding/json emits
// valid UTF-8, where 0x7F is always DEL and 0xC2 always a lead byte, so the
// rewrite cannot split another character.
// invisible reports whether r is a format rune that renders as nothing.
func invisible(r rune) bool { return r >= 0x80 && isControl(r) }

func escapeControls(b []byte) []byte {
	plain := func(i int) int { // the end of the run of ASCII below DEL from i
		for i < len(b) && b[i] < 0x7f {
			i++
		}
		return i
	}
	i := plain(0)
	if i == len(b) {
		return b // nothing to escape: no copy
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for ; i < len(b); i++ {
		switch {
		case b[i] < 0x7f:
			j := plain(i)
			out = append(out, b[i:j]...)
			i = j - 1
		case b[i] == 0x7f:
			out = append(out, `\u007f`...)
		case b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f:
			out = fmt.Appendf(out, `\u%04x`, b[i+1])
			i++
		case b[i] >= 0xe2 && b[i] <= 0xf3:
			// Invisible runes (zero-width, bidi, tag characters) are written
			// as escapes: a parser gets them back, a person sees them.
			r, n := utf8.DecodeRune(b[i:])
			if n > 1 && invisible(r) {
				if r > 0xffff {
					r1, r2 := utf16.EncodeRune(r)
					out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
				} else {
					out = fmt.Appendf(out, `\u%04x`, r)
				}
				i += n - 1
				continue
			}
			out = append(out, b[i])
		default:
			out = append(out, b[i])
		}
	}
	return out
}
