package evaluate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/gitrepo"
	"github.com/greenlight-ci/breaker/internal/report"
)

// TestScenarios runs the engine scenarios kept as data: each
// testdata/scenarios/*.txtar builds a real repository (main with one
// commit, then the branch "agent" with the commits/NN files in order),
// writes the results/ files into the work tree, loads and decides with
// the local tags, and compares the JSON report with want.json. want.json
// is a subset: every key it names must have that value; lists must have
// the same length, element by element.
//
// A commits/NN file is a commit message; a first line "files: a b" names the
// paths it changes (default: one new file). .greenlight/* files are
// committed on main. An "options" file holds "slice S-3" or "force" lines.
func TestScenarios(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	paths, err := filepath.Glob("testdata/scenarios/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got, want := runScenario(t, ar), scenarioFile(t, ar, "want.json")
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatalf("want.json: %v", err)
			}
			for _, diff := range subsetDiff("$", w, g) {
				t.Error(diff)
			}
			if t.Failed() {
				t.Logf("got:\n%s", got)
			}
		})
	}
}

func runScenario(t *testing.T, ar *txtar.Archive) []byte {
	g := newScenarioGit(t)
	dir := g.dir
	var opts Options
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, ".greenlight/") {
			g.write(f.Name, string(f.Data))
			g.run("add", f.Name)
		}
	}
	g.run("commit", "-q", "--allow-empty", "-m", "Initial commit")
	g.run("checkout", "-q", "-b", "agent")
	for _, f := range ar.Files {
		switch {
		case strings.HasPrefix(f.Name, "commits/"):
			g.commit(string(f.Data))
		case strings.HasPrefix(f.Name, "results/"):
			g.write(f.Name, string(f.Data))
			opts.Results = []string{"results/*"}
		case f.Name == "options":
			sc := bufio.NewScanner(strings.NewReader(string(f.Data)))
			for sc.Scan() {
				switch k, v, _ := strings.Cut(strings.TrimSpace(sc.Text()), " "); k {
				case "slice":
					opts.Slice = v
				case "force":
					opts.Force = true
				case "":
				default:
					t.Fatalf("options: unknown %q", k)
				}
			}
		}
	}
	opts.RepoDir, opts.Base, opts.Policy = dir, "main", breaker.DefaultPolicy()
	snap, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	out, err := report.JSON(snap.Decide(snap.LocalRefs()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func scenarioFile(t *testing.T, ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	t.Fatalf("the scenario has no %s", name)
	return nil
}

// subsetDiff lists where got does not hold what want says.
func subsetDiff(at string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: got %v, want an object", at, got)}
		}
		var out []string
		for k, v := range w {
			gv, ok := g[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s.%s: missing", at, k))
				continue
			}
			out = append(out, subsetDiff(at+"."+k, v, gv)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: got %v, want %d elements", at, got, len(w))}
		}
		var out []string
		for i := range w {
			out = append(out, subsetDiff(fmt.Sprintf("%s[%d]", at, i), w[i], g[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: got %v, want %v", at, got, want)}
	}
	return nil
}

// scenarioGit drives git with fixed identities and dates.
type scenarioGit struct {
	*gitrepo.Repo
	t   *testing.T
	dir string
}

// newScenarioGit is an empty repository on main, on the shop's clock.
func newScenarioGit(t *testing.T) *scenarioGit {
	r := gitrepo.Init(t)
	r.Dates = gitrepo.ShopDates
	return &scenarioGit{Repo: r, t: t, dir: r.Dir}
}

func (g *scenarioGit) run(args ...string) {
	g.t.Helper()
	g.Git(args...)
}

func (g *scenarioGit) write(name, body string) {
	g.t.Helper()
	g.Write(name, body)
}

// commit commits msg, changing the files its "files:" line names.
func (g *scenarioGit) commit(msg string) {
	g.t.Helper()
	g.Tick++
	files := []string{fmt.Sprintf("src/change%d.go", g.Tick)}
	if first, rest, ok := strings.Cut(msg, "\n"); ok && strings.HasPrefix(first, "files:") {
		files, msg = strings.Fields(strings.TrimPrefix(first, "files:")), strings.TrimLeft(rest, "\n")
	}
	for _, f := range files {
		g.write(f, fmt.Sprintf("package x // change %d\n", g.Tick))
		g.run("add", f)
	}
	g.write(".git/SCENARIO_MSG", msg)
	g.run("commit", "-q", "-F", ".git/SCENARIO_MSG")
}
