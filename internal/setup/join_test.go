package setup

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/greenlight-ci/breaker/internal/testresult"
	"github.com/greenlight-ci/breaker/internal/workspace"
)

const joinUses = "acme/breaker@0123456789abcdef0123456789abcdef01234567"

// repoDir writes files into a fresh directory: a repository as init
// finds it.
func repoDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
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

// joinPlan builds init's plan for dir and checks what every join keeps:
// no workflow of init's runs the tests, the joined file is the old one
// with lines added (the test line replaced), and the breaker follows the
// joined workflow by name.
func joinPlan(t *testing.T, dir, workflow, name string) (Plan, File) {
	t.Helper()
	plan, err := Build(os.DirFS(dir), Options{Agent: "other", DefaultBranch: "main", Uses: joinUses})
	if err != nil {
		t.Fatal(err)
	}
	var joined *File
	for i, f := range plan.Files {
		switch {
		case f.Path == workflow:
			joined = &plan.Files[i]
		case f.Path == ".github/workflows/agent-ci.yml":
			t.Fatalf("init wrote a second test workflow beside %s", workflow)
		case strings.HasSuffix(f.Path, ".yml") && strings.Contains(f.Content, "test-results/") && !strings.Contains(f.Content, "workflow_run"):
			t.Errorf("%s runs the tests a second time", f.Path)
		}
	}
	if joined == nil || joined.Patch == "" {
		t.Fatalf("init did not join %s; notes: %q", workflow, plan.Notes)
	}
	old, err := os.ReadFile(filepath.Join(dir, workflow))
	if err != nil {
		t.Fatal(err)
	}
	// Every old line but the test line is still there, in order.
	oldLines, newLines := strings.Split(string(old), "\n"), strings.Split(joined.Content, "\n")
	missing, j := 0, 0
	for _, l := range oldLines {
		for j < len(newLines) && newLines[j] != l {
			j++
		}
		if j == len(newLines) {
			missing++
			j = 0
			continue
		}
		j++
	}
	if missing != 1 {
		t.Errorf("%d lines of %s changed, want only the test line:\n%s", missing, workflow, joined.Patch)
	}
	for _, f := range plan.Files {
		if f.Path == ".github/workflows/breaker.yml" && !strings.Contains(f.Content, "workflows: [\""+name+"\"]") {
			t.Errorf("breaker.yml does not follow %q:\n%s", name, f.Content)
		}
	}
	lint(t, dir, *joined)
	return plan, *joined
}

// lint runs actionlint over the patched workflow, as CI has it.
func lint(t *testing.T, dir string, f File) {
	t.Helper()
	bin, err := exec.LookPath("actionlint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("actionlint is not on PATH; .ci/run installs it before the tests")
		}
		return
	}
	p := filepath.Join(t.TempDir(), ".github", "workflows", filepath.Base(f.Path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-shellcheck=", "-pyflakes=", p)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("actionlint on the joined %s: %v\n%s", f.Path, err, out)
	}
}

// runPatchedStep runs the joined workflow's patched test step in dir, as
// the runner would (bash -e), and reads the results it wrote as the
// breaker does.
func runPatchedStep(t *testing.T, dir string, f File, results string, env ...string) []testresult.Test {
	t.Helper()
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(f.Content), &wf); err != nil {
		t.Fatal(err)
	}
	var script string
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.Run, "mkdir -p test-results") {
				script = s.Run
			}
		}
	}
	if script == "" {
		t.Fatalf("no patched step in %s", f.Content)
	}
	cmd := exec.Command("bash", "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"RUNNER_TEMP=" + t.TempDir(), "CI=true", "GOWORK=off", "GOFLAGS=-count=1"}, env...)...)
	out, _ := cmd.CombinedOutput() // failing tests fail the step, as on GitHub
	ws, err := workspace.Open(filepath.Join(dir, "test-results"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rep, err := ws.Results([]string{results})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Infra != "" {
		t.Fatalf("the breaker reads no tests: %s\n%s", rep.Infra, out)
	}
	return rep.Tests
}

// ownCount runs the repository's own command, unpatched, and counts the
// tests its output reports: the lines the pattern matches, one test each,
// or the count a matching line starts with ("2 passing").
func ownCount(t *testing.T, dir, pattern string, cmd ...string) int {
	t.Helper()
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GOWORK=off", "CI=true")
	out, _ := c.CombinedOutput() // a failing test fails the command
	n := 0
	re := regexp.MustCompile(pattern)
	for _, l := range strings.Split(string(out), "\n") {
		if re.MatchString(l) {
			// A line naming a count ("2 passing") counts that many.
			if k, err := strconv.Atoi(strings.Fields(l)[0]); err == nil {
				n += k
				continue
			}
			n++
		}
	}
	if n == 0 {
		t.Fatalf("%v reported no test:\n%s", cmd, out)
	}
	return n
}

func names(tests []testresult.Test) []string {
	var out []string
	for _, tt := range tests {
		out = append(out, tt.FullName()+"="+string(tt.Status))
	}
	sort.Strings(out)
	return out
}

// A Go module whose workflow runs go test in a matrix: init joins it, the
// legs upload an artifact each, and the patched step's results hold every
// test the repository's own command runs.
func TestJoin_AGoModulesWorkflow(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	dir := repoDir(t, map[string]string{
		"go.mod":  "module example.com/shop\n\ngo 1.22\n",
		"cart.go": "package shop\n\nfunc Total(xs ...int) int {\n\tt := 0\n\tfor _, x := range xs {\n\t\tt += x\n\t}\n\treturn t\n}\n",
		"cart_test.go": "package shop\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif Total(1, 2) != 3 {\n\t\tt.Fatal(\"1+2\")\n\t}\n}\n\n" +
			"func TestEmpty(t *testing.T) {\n\tif Total() != 0 {\n\t\tt.Fatal(\"empty\")\n\t}\n}\n\nfunc TestDiscount(t *testing.T) {\n\tt.Fatal(\"expected 90, got 100\")\n}\n",
		".github/workflows/tests.yml": `name: Tests
on: [push, pull_request]

jobs:
  test:
    strategy:
      matrix:
        go: [stable, oldstable]
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version: ${{ matrix.go }}
      - name: Test
        run: go test -v ./...
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: echo lint
`,
	})
	plan, joined := joinPlan(t, dir, ".github/workflows/tests.yml", "Tests")
	for _, want := range []string{"go test -json -v ./... > test-results/go-test.json", "name: test-results-${{ strategy.job-index }}"} {
		if !strings.Contains(joined.Content, want) {
			t.Errorf("the joined workflow lacks %q:\n%s", want, joined.Patch)
		}
	}
	breaker := plan.Files[1].Content
	if !strings.Contains(breaker, "results-artifact: test-results-*") || !strings.Contains(breaker, `results: "**/go-test.json"`) {
		t.Errorf("breaker.yml does not read every leg's artifact:\n%s", breaker)
	}
	own := ownCount(t, dir, `^\s*--- (PASS|FAIL|SKIP):`, "go", "test", "-count=1", "-v", "./...")
	got := names(runPatchedStep(t, dir, joined, "go-test.json"))
	if len(got) != own {
		t.Errorf("the breaker reads %d tests, the repository's own go test runs %d", len(got), own)
	}
	want := []string{"example.com/shop.TestDiscount=fail", "example.com/shop.TestEmpty=pass", "example.com/shop.TestTotal=pass"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the breaker reads %q, want the repository's three tests %q", got, want)
	}
}

// nodeModules links the runners .ci/run installs into dir, as npm install
// would put them there; without them the test says how to install them.
func nodeModules(t *testing.T, dir string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	mods := filepath.Join(filepath.Dir(file), "..", "..", ".ci", "runners", "node_modules")
	if _, err := os.Stat(filepath.Join(mods, ".bin", "mocha")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the test runners are not installed (%v); .ci/run installs them: npm ci --prefix .ci/runners", err)
		}
		t.Skip("the test runners are not installed: npm ci --prefix .ci/runners")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH")
	}
	if err := os.Symlink(mods, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
}

// An npm package without a lockfile whose npm test passes flags and two
// directories (mocha with --require and --check-leaks), run in CI through
// a coverage script that wraps npm test: init installs with npm install
// (no cache, which needs a lockfile), leaves the line as it is with the
// reporter in its environment, and the breaker reads every test the
// repository's command runs, among them one that passes only with the
// --require the script gives.
func TestJoin_AnNpmPackageWithoutALockfile(t *testing.T) {
	t.Parallel()
	dir := repoDir(t, map[string]string{
		"package.json": `{"name": "web", "scripts": {"test": "mocha --require test/support/env --reporter spec --check-leaks test/ test/acceptance/", "test-ci": "npm test --"},
 "devDependencies": {"mocha": "11.7.5"}}`,
		".npmrc":              "package-lock=false\n",
		"test/support/env.js": "process.env.NODE_ENV = 'test';\n",
		"test/app.js": "const assert = require('assert');\ndescribe('app', () => {\n  it('runs under the test env', () => assert.equal(process.env.NODE_ENV, 'test'));\n" +
			"  it('routes', () => assert.equal(1, 1));\n});\n",
		"test/acceptance/login.js": "const assert = require('assert');\ndescribe('login', () => {\n  it('redirects', () => assert.equal(302, 500));\n});\n",
		".github/workflows/ci.yml": `name: ci
on:
  push:
    branches: [master]
  pull_request:
    paths-ignore: ['*.md']
permissions:
  contents: read
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 22
      - run: npm install
      - run: npm run test-ci
`,
	})
	plan, joined := joinPlan(t, dir, ".github/workflows/ci.yml", "ci")
	if strings.Contains(joined.Content, "npm ci") || strings.Contains(joined.Content, "cache: npm") {
		t.Errorf("a package without a lockfile gets npm ci or an npm cache:\n%s", joined.Content)
	}
	if !strings.Contains(joined.Content, `NODE_OPTIONS="--require $RUNNER_TEMP/breaker-node/reporters.cjs" npm run test-ci`+"\n") {
		t.Errorf("the test step is not the repository's npm test with the reporter around it:\n%s", joined.Patch)
	}
	if strings.Contains(strings.Join(plan.Notes, "\n"), "npm install") {
		t.Errorf("init speaks of an install it does not write: %q", plan.Notes)
	}
	nodeModules(t, dir)
	own := ownCount(t, dir, `^\s*[0-9]+ (passing|failing)`, "npm", "test")
	got := names(runPatchedStep(t, dir, joined, "mocha-*.xml"))
	if len(got) != own {
		t.Errorf("the breaker reads %d tests, the repository's own npm test runs %d", len(got), own)
	}
	want := []string{"app.routes=pass", "app.runs under the test env=pass", "login.redirects=fail"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the breaker reads %q, want every test npm test runs %q", got, want)
	}
}

// A Jest project whose npm test runs Jest once per time zone and then
// once more: every jest the script starts reports (a test failing only
// in London is read as failing), not only the last one.
func TestJoin_AJestProjectThatLoopsOverTimeZones(t *testing.T) {
	t.Parallel()
	dir := repoDir(t, map[string]string{
		"package.json": `{"name": "dates", "scripts": {"test": "TZ=Pacific/Auckland npm run test-tz && TZ=Europe/London npm run test-tz; jest test/", "test-tz": "jest test/tz --coverage=false"},
 "devDependencies": {"jest": "30.2.0"}}`,
		"package-lock.json":  `{"name": "dates", "lockfileVersion": 3, "requires": true, "packages": {}}`,
		"test/tz.test.js":    "test('offset is a number', () => expect(typeof new Date(0).getTimezoneOffset()).toBe('number'));\ntest('not London', () => expect(process.env.TZ).not.toBe('Europe/London'));\n",
		"test/parse.test.js": "test('parses', () => expect(Date.parse('2020-01-01T00:00:00Z')).toBe(1577836800000));\n",
		".github/workflows/test.yml": `name: test
on:
  pull_request:
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
      - run: npm ci
      - name: Run tests
        run: |
          npm test
`,
	})
	_, joined := joinPlan(t, dir, ".github/workflows/test.yml", "test")
	nodeModules(t, dir)
	got := names(runPatchedStep(t, dir, joined, "junit*.xml"))
	want := []string{"not London=fail", "offset is a number=pass", "parses=pass"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the breaker reads %q, want every jest run's tests, London's failure too: %q", got, want)
	}
}

// A tox project: the pytest command tox runs takes {posargs}, so the
// JUnit flag rides after --; without {posargs} init writes nothing and says
// what to add.
func TestJoin_AToxProject(t *testing.T) {
	t.Parallel()
	workflow := `name: Tests
on:
  pull_request:
jobs:
  tests:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - run: pip install tox
      - run: tox run -e py3.12
`
	for _, c := range []struct {
		tox    string
		joined bool
	}{
		{"[tox]\nenvlist = py3{9,10,11,12}\n\n[testenv]\ndeps = pytest\ncommands = pytest -v --tb=short --basetemp={envtmpdir} {posargs}\n", true},
		{"[tox]\nenvlist = py3{9,10,11,12}\n\n[testenv]\ndeps = pytest\ncommands = pytest -v\n", false},
	} {
		dir := repoDir(t, map[string]string{"tox.ini": c.tox, "pyproject.toml": "[project]\nname = \"markup\"\n", ".github/workflows/tests.yml": workflow})
		if c.joined {
			_, joined := joinPlan(t, dir, ".github/workflows/tests.yml", "Tests")
			if !strings.Contains(joined.Content, `tox run -e py3.12 -- --junitxml="$PWD/test-results/junit.xml"`) {
				t.Errorf("the tox line does not pass the JUnit flag through {posargs}:\n%s", joined.Patch)
			}
			continue
		}
		_, err := Build(os.DirFS(dir), Options{Agent: "other", DefaultBranch: "main", Uses: joinUses})
		if err == nil || !strings.Contains(err.Error(), "takes no {posargs}") || !strings.Contains(err.Error(), "--junitxml") {
			t.Errorf("without {posargs}: %v, want what to add", err)
		}
	}
}

// A tox project run for real: the patched line (tox with the JUnit flag
// through {posargs}) yields the tests tox's own run reports. Debian's tox
// and pytest, with the project's environment on the system's packages (no
// package index here).
func TestJoin_AToxProjectRunsItsOwnTests(t *testing.T) {
	t.Parallel()
	tox, err := exec.LookPath("/usr/bin/tox")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tox is not installed; .ci/run installs Debian's tox and python3-pytest")
		}
		t.Skip("tox is not installed: apt-get install tox python3-pytest")
	}
	dir := repoDir(t, map[string]string{
		"tox.ini": "[tox]\nenvlist = py\nskipsdist = true\n\n[testenv]\nsitepackages = true\nskip_install = true\ncommands = pytest -v {posargs}\n",
		"tests/test_markup.py": "def test_escape():\n    assert '&lt;' == '&lt;'\n\n\ndef test_striptags():\n    assert 'a b' == 'a  b'\n\n\n" +
			"def test_unescape():\n    assert 1 == 1\n",
		".github/workflows/tests.yaml": "name: Tests\non:\n  pull_request:\njobs:\n  tests:\n    runs-on: ubuntu-latest\n    steps:\n" +
			"      - uses: actions/checkout@v4\n      - run: pip install tox\n      - run: tox -e py\n",
	})
	_, joined := joinPlan(t, dir, ".github/workflows/tests.yaml", "Tests")
	env := []string{"PATH=" + filepath.Dir(tox) + string(os.PathListSeparator) + os.Getenv("PATH"), "PIP_NO_INDEX=1"}
	own := ownCount(t, dir, `::\S+ (PASSED|FAILED|ERROR|SKIPPED)`, "/usr/bin/tox", "-e", "py")
	got := names(runPatchedStep(t, dir, joined, "junit.xml", env...))
	want := []string{"tests.test_markup.test_escape=pass", "tests.test_markup.test_striptags=fail", "tests.test_markup.test_unescape=pass"}
	if strings.Join(got, " ") != strings.Join(want, " ") || len(got) != own {
		t.Errorf("the breaker reads %q (tox's own run reports %d), want %q", got, own, want)
	}
}

// What init cannot patch it leaves alone and writes nothing beside it (the
// suite would run twice): it names the file, why, and the two ways on;
// --new-workflow writes the breaker's own test workflow all the same, and
// once the step uploads test-results (added by hand) init follows it.
func TestJoin_ALineItCannotPatchIsNamed(t *testing.T) {
	t.Parallel()
	const chained = "name: CI\non: pull_request\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: go vet ./... && go test ./...\n"
	dir := repoDir(t, map[string]string{"go.mod": "module x\n", ".github/workflows/ci.yml": chained})
	o := Options{Agent: "other", DefaultBranch: "main", Uses: joinUses}
	for _, simple := range []bool{false, true} {
		o.Simple = simple
		_, err := Build(os.DirFS(dir), o)
		if err == nil || !strings.Contains(err.Error(), ".github/workflows/ci.yml") || !strings.Contains(err.Error(), "chains or redirects") || !strings.Contains(err.Error(), "--new-workflow") {
			t.Errorf("simple=%v: %v, want the file, why and --new-workflow", simple, err)
		}
	}
	o.Simple, o.NewWorkflow = false, true
	plan, err := Build(os.DirFS(dir), o)
	if err != nil || plan.Files[0].Path != ".github/workflows/agent-ci.yml" {
		t.Fatalf("--new-workflow: %v, %+v", err, plan.Files)
	}
	byHand := strings.Replace(chained, "      - run: go vet ./... && go test ./...\n",
		"      - run: go vet ./... && go test -json ./... > test-results/go-test.json\n      - uses: actions/upload-artifact@v4\n        with:\n          name: test-results\n          path: test-results/\n", 1)
	dir = repoDir(t, map[string]string{"go.mod": "module x\n", ".github/workflows/ci.yml": byHand})
	o.NewWorkflow = false
	plan, err = Build(os.DirFS(dir), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plan.Files {
		if f.Path == ".github/workflows/ci.yml" || f.Path == ".github/workflows/agent-ci.yml" {
			t.Errorf("a workflow that uploads its results already: init writes %s", f.Path)
		}
		if f.Path == ".github/workflows/breaker.yml" && !strings.Contains(f.Content, `workflows: ["CI"]`) {
			t.Errorf("breaker.yml does not follow the workflow that uploads the results")
		}
	}
}

// A runner init cannot patch yet (Maven): its test workflow is named, not
// run a second time.
func TestJoin_ARunnerItCannotPatchYetIsNamed(t *testing.T) {
	t.Parallel()
	dir := repoDir(t, map[string]string{"pom.xml": "<project/>\n",
		".github/workflows/maven.yml": "name: Java CI\non: [push, pull_request]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: mvn -B verify\n"})
	_, err := Build(os.DirFS(dir), Options{Agent: "other", DefaultBranch: "main", Uses: joinUses})
	if err == nil || !strings.Contains(err.Error(), "maven.yml") || !strings.Contains(err.Error(), "Maven") {
		t.Errorf("%v, want the workflow and the runner named", err)
	}
}

// The results are uploaded from where the test step runs: its job's
// defaults.run.working-directory, or its own.
func TestJoin_TheUploadFollowsTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ job, step, want string }{
		{"    defaults:\n      run:\n        working-directory: app\n", "", "path: app/test-results/"},
		{"", "        working-directory: ./svc/\n", "path: ./svc/test-results/"},
		{"", "", "path: test-results/"},
	} {
		dir := repoDir(t, map[string]string{
			"go.mod": "module x\n",
			".github/workflows/ci.yml": "name: CI\non: pull_request\njobs:\n  t:\n    runs-on: ubuntu-latest\n" + c.job +
				"    steps:\n      - uses: actions/checkout@v4\n      - run: go test ./...\n" + c.step,
		})
		_, joined := joinPlan(t, dir, ".github/workflows/ci.yml", "CI")
		if !strings.Contains(joined.Content, c.want) {
			t.Errorf("want %q:\n%s", c.want, joined.Content)
		}
	}
}

// Shapes of real test workflows: a reusable workflow that a pull_request
// workflow calls (the breaker follows the caller), tox through uv with a
// matrix expression (its || is not the shell's), and go test through make
// (named, not rewritten).
func TestJoin_RealShapes(t *testing.T) {
	t.Parallel()
	dir := repoDir(t, map[string]string{
		"package.json":                `{"scripts": {"test": "jest"}, "devDependencies": {"jest": "30.2.0"}}`,
		"package-lock.json":           `{"lockfileVersion": 3}`,
		".github/workflows/check.yml": "name: Check\non:\n  pull_request:\njobs:\n  test:\n    uses: ./.github/workflows/lint-test.yml\n",
		".github/workflows/lint-test.yml": "on:\n  workflow_call:\njobs:\n  lint-and-test:\n    runs-on: ubuntu-latest\n    steps:\n" +
			"      - uses: actions/checkout@v4\n      - run: npm install\n      - name: Run tests\n        run: npm test\n",
	})
	joinPlan(t, dir, ".github/workflows/lint-test.yml", "Check")

	dir = repoDir(t, map[string]string{
		"pyproject.toml": "[project]\nname = \"m\"\n[tool.tox.env_run_base]\ncommands = [[\"pytest\", {replace = \"posargs\", default = [], extend = true}]]\n",
		".github/workflows/tests.yaml": "name: Tests\non:\n  pull_request:\njobs:\n  tests:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        include:\n          - {python: '3.13'}\n          - {tox: typing}\n    steps:\n" +
			"      - uses: actions/checkout@v4\n      - run: uv run --locked tox run -e ${{ matrix.tox || format('py{0}', matrix.python) }}\n",
	})
	_, joined := joinPlan(t, dir, ".github/workflows/tests.yaml", "Tests")
	if !strings.Contains(joined.Content, `format('py{0}', matrix.python) }} -- --junitxml="$PWD/test-results/junit.xml"`) {
		t.Errorf("the uv tox line:\n%s", joined.Patch)
	}

	dir = repoDir(t, map[string]string{"go.mod": "module x\n", "Makefile": "test:\n\tgo test -race -v ./...\n",
		".github/workflows/ci.yml": "name: Test\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test\n"})
	if _, err := Build(os.DirFS(dir), Options{Agent: "other", DefaultBranch: "main", Uses: joinUses}); err == nil || !strings.Contains(err.Error(), "through make") {
		t.Errorf("make test: %v, want it named", err)
	}
}
