package action_test

import (
	"os"
	"path/filepath"
	"testing"
)

// The scope lock is the base's (issue 30): the agent deletes the slice
// graph on its branch, or widens its slice there, and edits a file out of
// the base's scope in the same attempt: the edit is still a violation,
// and so is the change to the graph.
func TestScope_TheLockIsReadFromTheBase(t *testing.T) {
	t.Parallel()
	graph := `{"slices": [{"id": "S-3", "files_in_scope": ["internal/"]}]}`
	for _, how := range []string{"deleted", "widened"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			if err := os.MkdirAll(filepath.Join(r.dir, ".greenlight"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(r.dir, ".greenlight", "GRAPH.json"), []byte(graph), 0o644); err != nil {
				t.Fatal(err)
			}
			r.git("add", ".greenlight")
			r.git("commit", "-q", "-m", "The slice graph")
			r.srv.SetDefaultBranch("main", r.git("rev-parse", "main"))
			r.git("checkout", "-q", "-b", "agent/S-3")
			switch how {
			case "deleted":
				r.git("rm", "-q", ".greenlight/GRAPH.json")
			case "widened":
				wide := `{"slices": [{"id": "S-3", "files_in_scope": ["internal/", "docs/", ".greenlight/"]}]}`
				if err := os.WriteFile(filepath.Join(r.dir, ".greenlight", "GRAPH.json"), []byte(wide), 0o644); err != nil {
					t.Fatal(err)
				}
				r.git("add", ".greenlight")
			}
			if err := os.MkdirAll(filepath.Join(r.dir, "docs"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(r.dir, "docs", "login.md"), []byte("how to log in\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r.git("add", "docs")
			r.commit("Fix the login", "Greenlight-Slice: S-3", "Greenlight-Test: TestLogin", "Greenlight-Result: pass")
			r.results(map[string]string{"TestLogin": "pass"})
			r.open(7, "agent/S-3")
			o := r.push("agent/S-3")
			if o.Decision == nil || !o.Decision.Scope.Enabled {
				t.Fatalf("the graph %s on the branch: scope %+v; want the base's lock on\n%s", how, o.Decision, o.stdout)
			}
			out := map[string]bool{}
			for _, f := range o.Decision.Violations {
				if f.Verdict == "violation" {
					out[f.File] = true
				}
			}
			if !out["docs/login.md"] || !out[".greenlight/GRAPH.json"] {
				t.Errorf("violations %v; want docs/login.md and .greenlight/GRAPH.json", out)
			}
		})
	}
}
