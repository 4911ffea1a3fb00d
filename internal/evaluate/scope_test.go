package evaluate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/gitrepo"
)

// The scope lock as `breaker evaluate` judges it (judge_test.go): a real
// repository, a slice graph at .greenlight/GRAPH.json (testdata/scope/ or
// the Greenlight fixture) and the JSON report. Every branch below is
//
//	main: I ── G(graph) ── agent/S-n: A1 [── A2 ...]
//
// and the head's test passes in CI unless a test says otherwise, so any
// failure counted comes from the scope lock alone.

// scopeReport is the part of the v1 JSON report the scope tests read.
type scopeReport struct {
	State       string  `json:"state"`
	TripReason  *string `json:"trip_reason"`
	TotalFailed int     `json:"total_failed_attempts"`
	Scope       struct {
		Enabled bool   `json:"enabled"`
		Source  string `json:"source"`
		Note    string `json:"note"`
	} `json:"scope"`
	ScopeViolations []scopeFinding `json:"scope_violations"`
	Tests           []struct {
		Name     string `json:"name"`
		Attempts []struct {
			SHA          string `json:"sha"`
			Result       string `json:"result"`
			ResultSource string `json:"result_source"`
		} `json:"attempts"`
	} `json:"tests"`
	Notes []string `json:"notes"`
}

type scopeFinding struct {
	File          string `json:"file"`
	SHA           string `json:"sha"`
	Test          string `json:"test"`
	Justification string `json:"justification"`
	Verdict       string `json:"verdict"`
}

// headResult is the result and its source of the newest attempt.
func (r scopeReport) headResult() string {
	for _, tt := range r.Tests {
		if n := len(tt.Attempts); n > 0 && tt.Name == testDup {
			return tt.Attempts[n-1].Result + "/" + tt.Attempts[n-1].ResultSource
		}
	}
	return "none"
}

// scopeFile reads a file of testdata/scope/.
func scopeFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "scope", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// scopeRepo commits the graph files on main and checks out agent/<slice>.
func scopeRepo(t *testing.T, slice string, graph map[string]string) *gitrepo.Repo {
	t.Helper()
	r := gitrepo.Shop(t)
	if len(graph) > 0 {
		r.CommitFiles("Plan the slices", graph)
	}
	r.Git("checkout", "-q", "-b", "agent/"+slice)
	return r
}

// ourGraph is testdata/scope's graph and contracts at Greenlight's paths.
func ourGraph(t *testing.T) map[string]string {
	t.Helper()
	return map[string]string{
		".greenlight/GRAPH.json":   scopeFile(t, "GRAPH.json"),
		".greenlight/CONTRACTS.md": scopeFile(t, "CONTRACTS.md"),
	}
}

// scopeAttempt commits one attempt on testDup that writes files.
func scopeAttempt(t *testing.T, r *gitrepo.Repo, slice string, files map[string]string, extra ...string) string {
	t.Helper()
	msg := fmt.Sprintf("attempt %d\n\nGreenlight-Slice: %s\nGreenlight-Test: %s\nGreenlight-Strategy: attempt %d\n",
		r.Tick, slice, testDup, r.Tick)
	for _, e := range extra {
		msg += e + "\n"
	}
	return r.CommitFiles(msg, files)
}

// edits maps each path to a Go-ish body, distinct per call.
func edits(paths ...string) map[string]string {
	m := make(map[string]string, len(paths))
	for i, p := range paths {
		m[p] = fmt.Sprintf("// edit %d of %s\n", i, p)
	}
	return m
}

// scopeEval judges the branch as `breaker evaluate --results junit.xml
// [--graph graph]` does, with the head's test passing.
func scopeEval(t *testing.T, r *gitrepo.Repo, graph string) scopeReport {
	t.Helper()
	r.JUnit("junit.xml", map[string]string{testDup: "pass"})
	opts := judgeOpts(r.Dir, "junit.xml")
	opts.Graph = graph
	var rep scopeReport
	judgeInto(t, opts, &rep)
	return rep
}

// violationFiles lists the files of findings with the verdict, in order.
func violationFiles(rep scopeReport, verdict string) []string {
	var out []string
	for _, f := range rep.ScopeViolations {
		if f.Verdict == verdict {
			out = append(out, f.File)
		}
	}
	return out
}

func TestScope_InScopeEditsWithPassingTestDoNotCount(t *testing.T) {
	t.Parallel()
	r := scopeRepo(t, "S-1", ourGraph(t))
	scopeAttempt(t, r, "S-1", edits(
		"internal/users/service.go",      // package
		"internal/users/store/sql.go",    // below the package
		"internal/users/service_test.go", // test file
		"docs/users.md",                  // deliverable written "docs/users.md (update)"
		"internal/notify/mailer.go",      // named in contract C-1's section
	))

	rep := scopeEval(t, r, "")
	if rep.State != "CLOSED" || rep.TotalFailed != 0 {
		t.Errorf("state %s, total failed %d; want CLOSED, 0", rep.State, rep.TotalFailed)
	}
	if len(rep.ScopeViolations) != 0 {
		t.Errorf("scope_violations = %+v, want none", rep.ScopeViolations)
	}
	if !rep.Scope.Enabled || rep.Scope.Source != "graph" {
		t.Errorf("scope = %+v, want enabled from the graph", rep.Scope)
	}
	if got, want := rep.headResult(), "pass/ci"; got != want {
		t.Errorf("head attempt = %s, want %s", got, want)
	}
}

func TestScope_UnjustifiedOutOfScopeEditFailsAPassingAttempt(t *testing.T) {
	t.Parallel()
	r := scopeRepo(t, "S-1", ourGraph(t))
	sha := scopeAttempt(t, r, "S-1", edits("internal/users/service.go", "internal/billing/invoice.go"))

	rep := scopeEval(t, r, "")
	if rep.State != "CLOSED" || rep.TotalFailed != 1 {
		t.Errorf("state %s, total failed %d; want CLOSED, 1", rep.State, rep.TotalFailed)
	}
	want := []scopeFinding{{File: "internal/billing/invoice.go", SHA: sha, Test: testDup, Verdict: "violation"}}
	if diff := cmp.Diff(want, rep.ScopeViolations); diff != "" {
		t.Errorf("scope_violations (-want +got):\n%s", diff)
	}
	if got, want := rep.headResult(), "fail/scope"; got != want {
		t.Errorf("head attempt = %s, want %s", got, want)
	}
}

// main: I ── G ── agent: A1 A2 A3, each passing by editing billing.
func TestScope_ThreeOutOfScopePassesTripTheBreaker(t *testing.T) {
	t.Parallel()
	r := scopeRepo(t, "S-1", ourGraph(t))
	for i := range 3 {
		scopeAttempt(t, r, "S-1", map[string]string{"internal/billing/invoice.go": fmt.Sprintf("package billing // try %d\n", i)})
	}
	rep := scopeEval(t, r, "")
	if rep.State != "OPEN" || rep.TripReason == nil || *rep.TripReason != "per_test" {
		t.Errorf("state %s, reason %v; want OPEN, per_test", rep.State, rep.TripReason)
	}
	if got := violationFiles(rep, "violation"); len(got) != 3 {
		t.Errorf("violations = %v, want one per attempt", got)
	}
}

func TestScope_Justification(t *testing.T) {
	t.Parallel()
	const file = "internal/billing/invoice.go"
	tests := []struct {
		name      string
		trailers  []string
		wantFail  int
		want      string // verdict
		wantWhy   string
		wantState string
	}{
		{"justified", []string{"Greenlight-Justify: " + file + ": the duplicate check reads the invoice owner"}, 0, "justified", "the duplicate check reads the invoice owner", "pass/ci"},
		{"one of several", []string{"Greenlight-Justify: docs/x.md: unrelated", "Greenlight-Justify: " + file + " : exported for the test"}, 0, "justified", "exported for the test", "pass/ci"},
		{"another file", []string{"Greenlight-Justify: internal/billing/tax.go: not this file"}, 1, "violation", "", "fail/scope"},
		{"empty reason", []string{"Greenlight-Justify: " + file + ":"}, 1, "violation", "", "fail/scope"},
		{"no path", []string{"Greenlight-Justify: needed it"}, 1, "violation", "", "fail/scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := scopeRepo(t, "S-1", ourGraph(t))
			sha := scopeAttempt(t, r, "S-1", edits(file), tt.trailers...)

			rep := scopeEval(t, r, "")
			if rep.TotalFailed != tt.wantFail {
				t.Errorf("total failed = %d, want %d", rep.TotalFailed, tt.wantFail)
			}
			want := []scopeFinding{{File: file, SHA: sha, Test: testDup, Justification: tt.wantWhy, Verdict: tt.want}}
			if diff := cmp.Diff(want, rep.ScopeViolations); diff != "" {
				t.Errorf("scope_violations (-want +got):\n%s", diff)
			}
			if got := rep.headResult(); got != tt.wantState {
				t.Errorf("head attempt = %s, want %s", got, tt.wantState)
			}
		})
	}
}

// files_in_scope replaces packages and deliverables; its entries ending in
// "/" are directories.
func TestScope_FilesInScopeOverrides(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		slice string
		files []string
		want  []string // violations
	}{
		{"override entries", "S-2", []string{"internal/users/service.go", "internal/users/service_test.go"}, nil},
		{"package file not in override", "S-2", []string{"internal/users/service.go", "internal/users/repo.go"}, []string{"internal/users/repo.go"}},
		{"directory entry", "S-2", []string{"internal/auth/token.go", "internal/auth/jwt/sign.go"}, nil},
		{"dot-slash directory entry", "S-2", []string{"internal/session/store.go"}, nil},
		{"directory prefix is not the directory", "S-2", []string{"internal/authz/policy.go", "internal/auth.go"}, []string{"internal/auth.go", "internal/authz/policy.go"}},
		{"empty override keeps test files", "S-3", []string{"internal/users/service_test.go"}, nil},
		{"empty override drops packages and deliverables", "S-3", []string{"internal/users/service.go", "docs/users.md"}, []string{"docs/users.md", "internal/users/service.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := scopeRepo(t, tt.slice, ourGraph(t))
			scopeAttempt(t, r, tt.slice, edits(tt.files...))

			rep := scopeEval(t, r, "")
			if rep.Scope.Source != "files_in_scope" {
				t.Errorf("scope = %+v, want source files_in_scope", rep.Scope)
			}
			if diff := cmp.Diff(tt.want, violationFiles(rep, "violation")); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if got, want := rep.TotalFailed, min(len(tt.want), 1); got != want {
				t.Errorf("total failed = %d, want %d", got, want)
			}
		})
	}
}

func TestScope_EmptyOverrideSaysOnlyTestFiles(t *testing.T) {
	t.Parallel()
	r := scopeRepo(t, "S-3", ourGraph(t))
	scopeAttempt(t, r, "S-3", edits("internal/users/service_test.go"))
	rep := scopeEval(t, r, "")
	if !strings.Contains(rep.Scope.Note, "empty") || !strings.Contains(rep.Scope.Note, "test file") {
		t.Errorf("scope note = %q, want it to say the empty override leaves only the test files", rep.Scope.Note)
	}
}

// An attempt that widens its own slice in the graph still edits the graph,
// which is never in scope.
func TestScope_EditingTheGraphIsAViolation(t *testing.T) {
	t.Parallel()
	r := scopeRepo(t, "S-1", ourGraph(t))
	widened := strings.Replace(scopeFile(t, "GRAPH.json"), `"packages": ["internal/users"]`, `"packages": ["internal/users", "internal/billing"]`, 1)
	scopeAttempt(t, r, "S-1", map[string]string{".greenlight/GRAPH.json": widened, "internal/billing/invoice.go": "package billing\n"})

	rep := scopeEval(t, r, "")
	if got := violationFiles(rep, "violation"); !slices.Contains(got, ".greenlight/GRAPH.json") {
		t.Errorf("violations = %v, want .greenlight/GRAPH.json among them", got)
	}
	if rep.TotalFailed != 1 {
		t.Errorf("total failed = %d, want 1", rep.TotalFailed)
	}
}

// Deleting an out-of-scope file changes it as much as editing it does.
// (A rename out of it into scope is not flagged: see the report.)
func TestScope_DeletingOutOfScopeFileIsAViolation(t *testing.T) {
	t.Parallel()
	r := gitrepo.Shop(t)
	graph := ourGraph(t)
	graph["internal/billing/invoice.go"] = "package billing\n"
	r.CommitFiles("Plan the slices", graph)
	r.Git("checkout", "-q", "-b", "agent/S-1")
	r.Git("rm", "-q", "internal/billing/invoice.go")
	scopeAttempt(t, r, "S-1", edits("internal/users/service.go"))

	rep := scopeEval(t, r, "")
	if diff := cmp.Diff([]string{"internal/billing/invoice.go"}, violationFiles(rep, "violation")); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	if rep.TotalFailed != 1 {
		t.Errorf("total failed = %d, want 1", rep.TotalFailed)
	}
}

// The Greenlight fixture graph: S-01's packages mix a directory and a file;
// S-13's deliverables carry notes in parentheses. No CONTRACTS.md ships
// with the fixture, so contracts add nothing.
func TestScope_RealGreenlightGraph(t *testing.T) {
	t.Parallel()
	graph, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "fixtures", "greenlight", "GRAPH.json"))
	if err != nil {
		t.Skipf("corpus: the Greenlight graph of the ../shared corpus is absent (%v)", err)
	}
	tests := []struct {
		slice string
		files []string
		want  []string // violations
	}{
		{"S-01", []string{"internal/version/version.go", "internal/version/build/info.go", "internal/cmd/version.go", "internal/cmd/version_test.go"}, nil},
		// A file next to a named file is not in scope (no same-directory widening).
		{"S-01", []string{"internal/cmd/version.go", "internal/cmd/install.go"}, []string{"internal/cmd/install.go"}},
		{"S-01", []string{"internal/versionx/v.go"}, []string{"internal/versionx/v.go"}},
		{"S-13", []string{"src/commands/gl/design.md", "internal/installer/installer.go", "src/commands/gl/help.md"}, nil},
		{"S-13", []string{"internal/installer/installer.go", "src/commands/gl/slice.md"}, []string{"src/commands/gl/slice.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.slice+"/"+strings.Join(tt.files, ","), func(t *testing.T) {
			t.Parallel()
			r := scopeRepo(t, tt.slice, map[string]string{".greenlight/GRAPH.json": string(graph)})
			scopeAttempt(t, r, tt.slice, edits(tt.files...))

			rep := scopeEval(t, r, "")
			if !rep.Scope.Enabled || rep.Scope.Source != "graph" || !strings.Contains(rep.Scope.Note, tt.slice) {
				t.Errorf("scope = %+v, want on from the graph, naming %s", rep.Scope, tt.slice)
			}
			if diff := cmp.Diff(tt.want, violationFiles(rep, "violation")); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if got, want := rep.TotalFailed, min(len(tt.want), 1); got != want {
				t.Errorf("total failed = %d, want %d", got, want)
			}
		})
	}
}

// The lock is off, and the report says why, when there is no graph, when the
// slice is not in the graph, and when the slice names nothing to scope by.
func TestScope_LockOff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		graph    map[string]string
		slice    string
		wantNote string
	}{
		{"no graph", nil, "S-1", "no slice graph at .greenlight/GRAPH.json"},
		{"slice not in graph", map[string]string{".greenlight/GRAPH.json": `{"slices": {"S-9": {"packages": ["x"]}}}`}, "S-1", "slice S-1 is not in .greenlight/GRAPH.json"},
		{"slice names nothing", map[string]string{".greenlight/GRAPH.json": scopeFile(t, "GRAPH.json")}, "S-4", "names no packages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := scopeRepo(t, tt.slice, tt.graph)
			scopeAttempt(t, r, tt.slice, edits("internal/billing/invoice.go", "anything/else.go"))

			rep := scopeEval(t, r, "")
			if rep.Scope.Enabled || rep.Scope.Source != "none" || !strings.Contains(rep.Scope.Note, tt.wantNote) {
				t.Errorf("scope = %+v, want off with a note containing %q", rep.Scope, tt.wantNote)
			}
			if rep.State != "CLOSED" || rep.TotalFailed != 0 || len(rep.ScopeViolations) != 0 {
				t.Errorf("state %s, total %d, findings %v; want CLOSED, 0, none", rep.State, rep.TotalFailed, rep.ScopeViolations)
			}
		})
	}
}

// --graph names a graph anywhere in the repository; CONTRACTS.md beside it is read.
func TestScope_GraphFlagReadsContractsBesideIt(t *testing.T) {
	t.Parallel()
	r := scopeRepo(t, "S-1", map[string]string{
		"plan/graph.json":   scopeFile(t, "GRAPH.json"),
		"plan/CONTRACTS.md": scopeFile(t, "CONTRACTS.md"),
	})
	scopeAttempt(t, r, "S-1", map[string]string{
		"internal/notify/mailer.go": "package notify\n",
		"plan/graph.json":           scopeFile(t, "GRAPH.json") + "\n",
	})

	rep := scopeEval(t, r, "plan/graph.json")
	if !strings.Contains(rep.Scope.Note, "plan/graph.json") || !strings.Contains(rep.Scope.Note, "contract") {
		t.Errorf("scope note = %q, want it to name plan/graph.json and its contract paths", rep.Scope.Note)
	}
	if diff := cmp.Diff([]string{"plan/graph.json"}, violationFiles(rep, "violation")); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// A graph that was asked for but cannot be used is an error, never a lock
// that is silently off: Load fails naming the file (breaker evaluate exits
// 1 with it, printing no report).
func TestScope_UnusableGraphIsAnError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		graph map[string]string
		flag  string // --graph
		want  []string
	}{
		{"missing --graph", nil, "missing.json", []string{"--graph", "missing.json"}},
		{"malformed default graph", map[string]string{".greenlight/GRAPH.json": "{\n  \"slices\": {\n    \"S-1\": {\"packages\": \"internal/users\"}\n  }\n}\n"}, "",
			[]string{".greenlight/GRAPH.json:3:", "packages"}},
		{"graph without slices", map[string]string{"g.json": `{"waves": []}`}, "g.json", []string{"g.json", "slices"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := scopeRepo(t, "S-1", tt.graph)
			scopeAttempt(t, r, "S-1", edits("internal/users/service.go"))
			r.JUnit("junit.xml", map[string]string{testDup: "pass"})
			opts := judgeOpts(r.Dir, "junit.xml")
			opts.Graph = tt.flag
			_, err := Load(context.Background(), opts)
			if err == nil {
				t.Fatal("Load succeeded, want an error naming the graph")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// The verdict does not depend on the working directory: from a
// subdirectory of the work tree, the repository and its
// .greenlight/GRAPH.json are found at the top, and the scope lock holds
// there too.
func TestScope_SameVerdictFromASubdirectory(t *testing.T) {
	t.Parallel()
	r := scopeRepo(t, "S-1", ourGraph(t))
	scopeAttempt(t, r, "S-1", edits("internal/billing/invoice.go"))
	atRoot := scopeEval(t, r, "")
	if len(violationFiles(atRoot, "violation")) == 0 {
		t.Fatalf("at the root: state %s, no violation; want the billing file", atRoot.State)
	}
	sub := filepath.Join(r.Dir, "internal", "users")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r.JUnit(filepath.Join("internal", "users", "junit.xml"), map[string]string{testDup: "pass"})
	var rep scopeReport
	judgeInto(t, judgeOpts(sub, "junit.xml"), &rep)
	if rep.State != atRoot.State || !slices.Equal(violationFiles(rep, "violation"), violationFiles(atRoot, "violation")) {
		t.Errorf("from %s: state %s, violations %v; want %s and %v as at the root", sub, rep.State, violationFiles(rep, "violation"), atRoot.State, violationFiles(atRoot, "violation"))
	}
}
