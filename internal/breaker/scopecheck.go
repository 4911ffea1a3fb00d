package breaker

import "strings"

// The verdicts of a ScopeFinding.
const (
	VerdictViolation = "violation"
	VerdictJustified = "justified"
)

// scopeLock returns the slice's lock when it is on, and the ScopeInfo the
// decision reports either way.
func scopeLock(src ScopeSource, slice string) (ScopeLock, ScopeInfo) {
	if src == nil {
		return nil, ScopeInfo{Enabled: false, Source: "none", Note: "no scope source"}
	}
	lock := src.Lock(slice)
	if lock == nil {
		return nil, ScopeInfo{Enabled: false, Source: "none", Note: "no scope lock for slice " + slice}
	}
	info := lock.Info()
	if !info.Enabled {
		return nil, info
	}
	return lock, info
}

// checkScope classifies every changed path of the attempts against the
// lock. An unjustified out-of-scope path is a violation and makes the
// attempt a failure even when its test passed (FR-5).
func (e *evaluator) checkScope(atts []tracked, lock ScopeLock) {
	if lock == nil {
		return
	}
	key := e.p.Key(TrailerJustify)
	for i := range atts {
		a := &atts[i]
		justs := TrailerValues(a.commit.Trailers, key)
		for _, path := range touchedPaths(a.commit.Files) {
			if path == "" || lock.InScope(path) {
				continue
			}
			reason, ok := justification(justs, path)
			finding := ScopeFinding{File: path, SHA: a.SHA, Test: a.Test,
				Justification: reason, Verdict: VerdictJustified}
			if !ok {
				finding.Verdict = VerdictViolation
				if a.Result != OutcomeFail {
					a.Result, a.Source = OutcomeFail, SourceScope
				}
			}
			a.findings = append(a.findings, finding)
		}
		if a.commit.FilesCut {
			// Paths past the bound were not read: none can be shown in scope.
			a.findings = append(a.findings, ScopeFinding{File: CutPathsFinding, SHA: a.SHA, Test: a.Test, Verdict: VerdictViolation})
			if a.Result != OutcomeFail {
				a.Result, a.Source = OutcomeFail, SourceScope
			}
		}
	}
}

// CutPathsFinding stands for the paths of an attempt that were not read
// because it changed more than the reader's bound.
const CutPathsFinding = "(more changed paths than the breaker reads in one commit)"

// touchedPaths lists every path an attempt changed: a rename touches both
// its old path (a file removed there) and its new one.
func touchedPaths(files []FileChange) []string {
	var out []string
	for _, f := range files {
		if f.Change == ChangeRenamed && f.From != "" && f.From != f.Path {
			out = append(out, f.From)
		}
		out = append(out, f.Path)
	}
	return out
}

// justification finds the reason given for path among the values of the
// <prefix>Justify trailers ("<path>: <reason>"). ok is true only when the
// path matches exactly after trimming and the reason is not empty; reason
// is returned even when empty so the finding shows what was written.
func justification(values []string, path string) (reason string, ok bool) {
	for _, v := range values {
		rest, found := strings.CutPrefix(v, path)
		if !found {
			continue
		}
		rest = strings.TrimLeft(rest, " \t")
		if !strings.HasPrefix(rest, ":") {
			continue
		}
		reason = strings.TrimSpace(rest[1:])
		if reason != "" {
			return reason, true
		}
	}
	return reason, false
}
