package breaker

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEvaluate_ScopeLock(t *testing.T) {
	t.Parallel()
	lock := fakeScope{prefix: "internal/"}
	tests := []struct {
		name     string
		commit   []string
		scope    ScopeSource
		want     []string // results of the counted attempts
		findings []ScopeFinding
		total    int
	}{
		{
			name:   "in-scope edits pass",
			commit: attempt("TestA"),
			scope:  lock,
			want:   []string{"TestA=pass/ci"},
		},
		{
			name:     "an unjustified out-of-scope edit makes a passing attempt fail",
			commit:   attempt("TestA", "+docs/other.md"),
			scope:    lock,
			want:     []string{"TestA=fail/scope"},
			findings: []ScopeFinding{{File: "docs/other.md", SHA: sha(1), Test: "TestA", Verdict: VerdictViolation}},
			total:    1,
		},
		{
			name:   "a justified out-of-scope edit is listed, not counted",
			commit: attempt("TestA", "~go.mod", "Greenlight-Justify:  go.mod : TestA needs the newer parser"),
			scope:  lock,
			want:   []string{"TestA=pass/ci"},
			findings: []ScopeFinding{{File: "go.mod", SHA: sha(1), Test: "TestA",
				Justification: "TestA needs the newer parser", Verdict: VerdictJustified}},
		},
		{
			name:     "a justification without a reason is a violation",
			commit:   attempt("TestA", "~go.mod", "Greenlight-Justify: go.mod:"),
			scope:    lock,
			want:     []string{"TestA=fail/scope"},
			findings: []ScopeFinding{{File: "go.mod", SHA: sha(1), Test: "TestA", Verdict: VerdictViolation}},
			total:    1,
		},
		{
			name:     "a justification must name the exact path",
			commit:   attempt("TestA", "~go.mod", "Greenlight-Justify: go.mod.bak: a reason", "greenlight-justify: go: a reason"),
			scope:    lock,
			want:     []string{"TestA=fail/scope"},
			findings: []ScopeFinding{{File: "go.mod", SHA: sha(1), Test: "TestA", Verdict: VerdictViolation}},
			total:    1,
		},
		{
			name:   "a lock that is off checks nothing",
			commit: attempt("TestA", "+docs/other.md"),
			scope:  fakeScope{off: true},
			want:   []string{"TestA=pass/ci"},
		},
		{
			name:   "no scope source checks nothing",
			commit: attempt("TestA", "+docs/other.md"),
			want:   []string{"TestA=pass/ci"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := input(chain(tt.commit), observe(sha(1), "TestA=pass"))
			in.Scope = tt.scope
			d := Evaluate(in)
			if diff := cmp.Diff(tt.want, verdictOf(d).Results); diff != "" {
				t.Errorf("results mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.findings, d.Violations); diff != "" {
				t.Errorf("Violations mismatch (-want +got):\n%s", diff)
			}
			if got := d.TotalFailed; got != tt.total {
				t.Errorf("TotalFailed = %d, want %d", got, tt.total)
			}
		})
	}
}

func TestEvaluate_ScopeInfo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		scope ScopeSource
		want  ScopeInfo
	}{
		{"nil source", nil, ScopeInfo{Enabled: false, Source: "none", Note: "no scope source"}},
		{"lock off", fakeScope{off: true}, ScopeInfo{Enabled: false, Source: "none", Note: "slice not in graph"}},
		{"lock on", fakeScope{}, ScopeInfo{Enabled: true, Source: "graph", Note: "test lock"}},
		{"nil lock", nilScope{}, ScopeInfo{Enabled: false, Source: "none", Note: "no scope lock for slice S-3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := input(chain(attempt("TestA")), observe(sha(1), "TestA=pass"))
			in.Scope = tt.scope
			if diff := cmp.Diff(tt.want, Evaluate(in).Scope); diff != "" {
				t.Errorf("Scope mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// nilScope is a ScopeSource that has no lock for any slice.
type nilScope struct{}

// Lock returns nil.
func (nilScope) Lock(string) ScopeLock { return nil }

func TestEvaluate_ScopeRenameChecksBothPaths(t *testing.T) {
	t.Parallel()
	c := chain(attempt("TestA"))
	c[0].Files = []FileChange{{Path: "internal/x/new.go", From: "docs/old.go", Change: ChangeRenamed}}
	in := input(c, observe(sha(1), "TestA=pass"))
	in.Scope = fakeScope{prefix: "internal/"}
	got := Evaluate(in).Violations
	if len(got) != 1 || got[0].File != "docs/old.go" {
		t.Errorf("Violations = %v, want one for the out-of-scope old path docs/old.go", got)
	}
	c[0].Files[0].From = "internal/x/old.go"
	in = input(c, observe(sha(1), "TestA=pass"))
	in.Scope = fakeScope{prefix: "internal/"}
	if got := Evaluate(in).Violations; len(got) != 0 {
		t.Errorf("Violations = %v, want none for a rename inside scope", got)
	}
}

// A commit whose changed paths were cut at the reader's bound cannot show
// that the rest are in scope: the attempt is a violation even though every
// path read is in scope and its test passed.
func TestEvaluate_ScopeCutPathsAreAViolation(t *testing.T) {
	t.Parallel()
	c := chain(attempt("TestA"))
	c[0].Files = []FileChange{{Path: "internal/x/a.go", Change: ChangeAdded}}
	c[0].FilesCut = true
	in := input(c, observe(sha(1), "TestA=pass"))
	in.Scope = fakeScope{prefix: "internal/"}
	got := Evaluate(in).Violations
	if len(got) != 1 || got[0].File != CutPathsFinding {
		t.Errorf("Violations = %v, want one for the unread paths", got)
	}
	c[0].FilesCut = false
	in = input(c, observe(sha(1), "TestA=pass"))
	in.Scope = fakeScope{prefix: "internal/"}
	if got := Evaluate(in).Violations; len(got) != 0 {
		t.Errorf("Violations = %v, want none when every path was read", got)
	}
}
