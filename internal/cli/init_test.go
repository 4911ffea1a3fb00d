package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/gitrepo"
	"github.com/greenlight-ci/breaker/internal/setup"
)

// initAction is the published copy the tests' workflows use.
const initAction = "acme/breaker@0123456789abcdef0123456789abcdef01234567"

// initRepo is a fresh git repository on main holding files.
func initRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := gitrepo.Init(t).Dir
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runInitIn(dir string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(context.Background(), append([]string{"breaker", "init", "--dir", dir}, args...),
		func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// breaker init in a fresh repository of each runner writes workflows that
// keep the agent's code from every write scope (the workflow rule), pin
// every third-party action by SHA, and that actionlint accepts; the
// runner is detected from the build files the test writes.
func TestInit_EachRunnerWritesWorkflowsThatPassTheRules(t *testing.T) {
	t.Parallel()
	lint, lintErr := exec.LookPath("actionlint")
	if lintErr != nil && os.Getenv("CI") == "true" {
		t.Fatal("actionlint is not on PATH; .ci/run installs it before the tests")
	}
	cases := []struct {
		runner  string
		files   map[string]string
		results string // the breaker's results input
		step    string // in the tests' step
	}{
		{"go", map[string]string{"go.mod": "module example.com/shop\n\ngo 1.24\n"}, "go-test.json", "go test -json ./... > test-results/go-test.json"},
		{"pytest", map[string]string{"pyproject.toml": "[project]\nname = \"shop\"\nversion = \"0.1.0\"\n"}, "junit.xml", "python -m pytest --junitxml=test-results/junit.xml"},
		{"jest", map[string]string{"package.json": `{"devDependencies": {"jest": "^29.7.0"}, "scripts": {"test": "jest"}}`}, "junit*.xml", "NODE_OPTIONS=\"--require $RUNNER_TEMP/breaker-node/reporters.cjs\" npm test"},
		{"vitest", map[string]string{"package.json": `{"devDependencies": {"vitest": "^3.2.0"}}`}, "vitest-*.xml", `NODE_OPTIONS="--require $RUNNER_TEMP/breaker-node/reporters.cjs" npx vitest run`},
		{"mocha", map[string]string{"package.json": `{"devDependencies": {"mocha": "^11.0.0"}}`}, "mocha-*.xml", `NODE_OPTIONS="--require $RUNNER_TEMP/breaker-node/reporters.cjs" npx mocha`},
		{"mocha", map[string]string{"package.json": `{"devDependencies": {"mocha": "^11.0.0"}, "scripts": {"test": "mocha --check-leaks test/"}}`}, "mocha-*.xml", `NODE_OPTIONS="--require $RUNNER_TEMP/breaker-node/reporters.cjs" npm test`},
		{"node", map[string]string{"package.json": `{"scripts": {"test": "node --test"}}`}, "node-test.tap", "--test-reporter-destination=$PWD/test-results/node-test.tap\" \\\n            npm test"},
		{"dotnet", map[string]string{"Shop.sln": "\n"}, "*.trx", "dotnet test --logger trx --results-directory test-results"},
		{"maven", map[string]string{"pom.xml": "<project/>\n"}, "TEST-*.xml", "mvn -B -fae test"},
		{"gradle", map[string]string{"build.gradle.kts": "plugins { java }\n", "gradlew": "#!/bin/sh\n"}, "TEST-*.xml", "./gradlew test --continue"},
		{"cargo", map[string]string{"Cargo.toml": "[package]\nname = \"shop\"\nversion = \"0.1.0\"\n"}, "junit.xml", "cargo nextest run --profile ci"},
	}
	for _, c := range cases {
		for _, shape := range []string{"", "--simple", "--no-app"} {
			simple, noApp := shape == "--simple", shape == "--no-app"
			name := c.runner + shape
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := initRepo(t, c.files)
				args := []string{"--agent", "copilot", "--action", initAction}
				if shape != "" {
					args = append(args, shape)
				}
				code, out, errOut := runInitIn(dir, args...)
				if code != ExitClosed {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				workflows, _ := filepath.Glob(filepath.Join(dir, ".github", "workflows", "*.yml"))
				want := map[bool]int{false: 4, true: 3}[simple]
				if len(workflows) != want {
					t.Fatalf("wrote %d workflows %v, want %d\n%s", len(workflows), workflows, want, out)
				}
				var all strings.Builder
				for _, f := range workflows {
					data, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					src := string(data)
					all.WriteString(src)
					problems, err := setup.UnsafeJobs(src)
					if err != nil {
						t.Fatalf("%s: %v", filepath.Base(f), err)
					}
					for _, p := range problems {
						t.Errorf("%s: %s", filepath.Base(f), p)
					}
					for _, u := range setup.UnpinnedActions(strings.ReplaceAll(src, initAction, "./breaker")) {
						t.Errorf("%s: %s is not pinned by SHA with its version", filepath.Base(f), u)
					}
					if !strings.Contains(out, "wrote .github/workflows/"+filepath.Base(f)) {
						t.Errorf("the output does not name %s:\n%s", filepath.Base(f), out)
					}
				}
				for _, s := range []string{c.step, "uses: " + initAction, "copilot-swe-agent[bot]", "results: \"" + map[bool]string{true: "test-results/"}[simple] + c.results + "\""} {
					if !strings.Contains(all.String(), s) {
						t.Errorf("the workflows lack %q", s)
					}
				}
				wr, key := strings.Contains(all.String(), "workflow_run:"), strings.Contains(all.String(), "ledger-key: ${{ secrets.LEDGER_KEY }}")
				if (simple && (wr || key)) || (!simple && !(wr && key)) {
					t.Errorf("simple=%v: the binding deployment is workflow_run with the ledger key, the simple one neither", simple)
				}
				// The binding deployment writes and reads the ledger as the
				// breaker's App (issue 46); --no-app says it is not binding.
				app := strings.Count(all.String(), "app-id: ${{ vars.BREAKER_APP_ID }}") == 3 &&
					strings.Count(all.String(), "client-id: ${{ vars.BREAKER_APP_CLIENT_ID }}") == 2 &&
					strings.Count(all.String(), "token: ${{ steps.app.outputs.token }}") == 2
				if app != (!simple && !noApp) {
					t.Errorf("%q: the workflows run as the breaker's App: %v", shape, app)
				}
				if noApp && (!strings.Contains(all.String(), "NOT binding") || !strings.Contains(out, "NOT binding")) {
					t.Errorf("--no-app: the workflow and the output do not say the ledger is not binding:\n%s", out)
				}
				if !simple && !noApp && !strings.Contains(out, "Checks, Contents, Issues and Pull requests read and") {
					t.Errorf("the next steps do not say how to create the App and its permissions:\n%s", out)
				}
				if data, err := os.ReadFile(filepath.Join(dir, ".github", "copilot-instructions.md")); err != nil || !strings.Contains(string(data), "stop changing code") {
					t.Errorf("the agent's instructions: %v %q", err, data)
				}
				if lintErr != nil {
					t.Log("actionlint is not on PATH here: the workflows were checked by the rules only")
					return
				}
				cmd := exec.Command(lint, workflows...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("actionlint: %v\n%s", err, out)
				}
			})
		}
	}
}

// Run twice, init refuses to overwrite (and writes nothing) until
// --force; the agent's instructions are appended to the file it already
// has, once, never overwritten.
func TestInit_RefusesToOverwriteWithoutForce(t *testing.T) {
	t.Parallel()
	dir := initRepo(t, map[string]string{"go.mod": "module x\n", "CLAUDE.md": "# House rules\nUse tabs."})
	if code, _, errOut := runInitIn(dir, "--agent", "claude", "--action", initAction); code != ExitClosed {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	wf := filepath.Join(dir, ".github", "workflows", "breaker.yml")
	if err := os.WriteFile(wf, []byte("# edited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runInitIn(dir, "--agent", "claude", "--action", initAction)
	if code != ExitError || !strings.Contains(errOut, "--force") || !strings.Contains(errOut, ".github/workflows/breaker.yml") {
		t.Fatalf("second run: exit %d, %q; want 1 naming the file and --force", code, errOut)
	}
	if data, _ := os.ReadFile(wf); string(data) != "# edited by hand\n" {
		t.Fatalf("the refused run changed breaker.yml: %q", data)
	}
	code, out, errOut := runInitIn(dir, "--agent", "claude", "--action", initAction, "--force")
	if code != ExitClosed || !strings.Contains(out, "kept CLAUDE.md") {
		t.Fatalf("--force: exit %d, %q %q", code, out, errOut)
	}
	if data, _ := os.ReadFile(wf); !strings.Contains(string(data), "workflow_run:") {
		t.Errorf("--force did not rewrite breaker.yml: %q", data)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "CLAUDE.md"))
	if !strings.HasPrefix(string(data), "# House rules\nUse tabs.\n\n") || strings.Count(string(data), "CI runs a circuit breaker") != 1 {
		t.Errorf("CLAUDE.md: %q; want the house rules kept and the breaker's lines once", data)
	}
}

// Each refusal names the input and the fix, and writes nothing: a flag
// value init does not know is a usage error (exit 2), checked before the
// repository is read; what the repository holds is an error (exit 1).
func TestInit_BadInputNamesTheFix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		files map[string]string
		args  []string
		code  int
		want  []string
	}{
		{"no action", map[string]string{"go.mod": "module x\n"}, nil, ExitError, []string{"--action", "docs/publishing.md"}},
		{"a tag, not a commit", map[string]string{"go.mod": "module x\n"}, []string{"--action", "acme/breaker@v1"}, ExitUsage, []string{"--action", "40-hex"}},
		{"no build file", nil, []string{"--action", initAction}, ExitError, []string{"--runner", "go.mod"}},
		{"two runners", map[string]string{"go.mod": "module x\n", "package.json": `{"devDependencies": {"jest": "1"}}`}, []string{"--action", initAction}, ExitError, []string{"--runner", "go (go.mod)", "jest (package.json)"}},
		{"unknown runner", map[string]string{"go.mod": "module x\n"}, []string{"--action", initAction, "--runner", "rspec"}, ExitUsage, []string{"--runner \"rspec\"", "pytest"}},
		{"unknown agent", map[string]string{"go.mod": "module x\n"}, []string{"--action", initAction, "--agent", "gemini"}, ExitUsage, []string{"--agent \"gemini\"", "copilot"}},
		{"unknown agent, no repository", nil, []string{"--action", initAction, "--agent", "gemini", "--dir", "/nonexistent/dir"}, ExitUsage, []string{"--agent \"gemini\""}},
		{"simple without an App", map[string]string{"go.mod": "module x\n"}, []string{"--action", initAction, "--simple", "--no-app"}, ExitUsage, []string{"--no-app", "--simple"}},
		{"unknown gate", map[string]string{"go.mod": "module x\n"}, []string{"--action", initAction, "--gate", "cursor"}, ExitUsage, []string{"--gate \"cursor\"", "codex", "fix-ci"}},
		{"a package.json without a known framework", map[string]string{"package.json": `{"scripts": {"test": "ava"}}`}, []string{"--action", initAction}, ExitError, []string{"--runner", "vitest"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := initRepo(t, c.files)
			code, _, errOut := runInitIn(dir, c.args...)
			if code != c.code || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Fatalf("exit %d, %q; want %d and one line", code, errOut, c.code)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("%q does not say %q", errOut, w)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, ".github")); err == nil {
				t.Error("a refused run wrote .github")
			}
		})
	}
}

// The README shows first what breaker init writes: its two workflows for
// a Go repository and Copilot, as init writes them (the action named as
// the README names it everywhere).
func TestInit_TheREADMEShowsWhatInitWrites(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := initRepo(t, map[string]string{"go.mod": "module x\n"})
	if code, _, errOut := runInitIn(dir, "--agent", "copilot", "--action", initAction); code != ExitClosed {
		t.Fatalf("init: exit %d: %s", code, errOut)
	}
	add, _, _ := strings.Cut(string(readme), "\n## Contents")
	for _, f := range []string{"agent-ci.yml", "breaker.yml"} {
		data, err := os.ReadFile(filepath.Join(dir, ".github", "workflows", f))
		if err != nil {
			t.Fatal(err)
		}
		block := "```yaml\n" + strings.ReplaceAll(string(data), initAction, setup.PlaceholderUses) + "```\n"
		if !strings.Contains(add, block) {
			t.Errorf("the README's first section does not show %s as breaker init writes it:\n%s", f, block)
		}
	}
}

// init joins the repository's own test workflow: without --write it prints
// the change and leaves the file alone, with --write it applies it; either
// way it writes no second test workflow, and a second init refuses
// without --force.
func TestInit_JoinsTheTestWorkflowThePatchIsPrintedOrWritten(t *testing.T) {
	t.Parallel()
	const ci = "name: CI\non: [pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: go test ./...\n"
	for _, write := range []bool{false, true} {
		dir := initRepo(t, map[string]string{"go.mod": "module x\n", ".github/workflows/ci.yml": ci})
		args := []string{"--agent", "claude", "--action", initAction}
		if write {
			args = append(args, "--write")
		}
		code, out, errOut := runInitIn(dir, args...)
		if code != ExitClosed {
			t.Fatalf("--write=%v: exit %d: %s", write, code, errOut)
		}
		data, err := os.ReadFile(filepath.Join(dir, ".github", "workflows", "ci.yml"))
		if err != nil {
			t.Fatal(err)
		}
		patched := strings.Contains(string(data), "go test -json ./... > test-results/go-test.json")
		if patched != write || (!write && string(data) != ci) {
			t.Errorf("--write=%v: ci.yml patched: %v\n%s", write, patched, data)
		}
		if !write && !strings.Contains(out, "+          go test -json ./... > test-results/go-test.json") {
			t.Errorf("without --write the diff is not printed:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join(dir, ".github", "workflows", "agent-ci.yml")); err == nil {
			t.Errorf("--write=%v: wrote agent-ci.yml beside the joined workflow", write)
		}
		if code, _, errOut := runInitIn(dir, args...); code != ExitError || !strings.Contains(errOut, "--force") {
			t.Errorf("a second init: exit %d %s, want a refusal naming --force", code, errOut)
		}
	}
}
