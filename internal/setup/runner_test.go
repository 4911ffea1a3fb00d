package setup

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A Python project's tests run as it runs them: through tox when its
// pytest command takes {posargs}, on .python-version's Python when it has
// one; init says which it chose.
func TestRunner_PythonRunsAsTheProjectDoes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"tox with posargs", map[string]string{"tox.ini": "[testenv]\ncommands = pytest {posargs}\n", "pyproject.toml": "[project]\n"},
			[]string{`tox -e py -- --junitxml="$PWD/test-results/junit.xml"`, "python -m pip install tox", `python-version: "3.x"`}},
		{"tox without posargs", map[string]string{"tox.ini": "[testenv]\ncommands = pytest\n", "pyproject.toml": "[project]\n", ".python-version": "3.11\n"},
			[]string{"python -m pytest --junitxml=test-results/junit.xml", "python -m pip install -e . pytest", "python-version-file: .python-version"}},
		{"requirements", map[string]string{"requirements.txt": "flask\n"},
			[]string{"python -m pip install -r requirements.txt pytest"}},
	} {
		r := pytestRunner(fstest.MapFS(mapFS(c.files)))
		all := r.Setup + r.Run
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: lacks %q:\n%s", c.name, w, all)
			}
		}
		if r.Why == "" {
			t.Errorf("%s: init does not say which command it chose", c.name)
		}
	}
}

func mapFS(files map[string]string) map[string]*fstest.MapFile {
	m := map[string]*fstest.MapFile{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

// The install is the lockfile's: npm ci and the cache only with one, npm
// install without; yarn and pnpm frozen to theirs; the test step is the
// repository's own npm test, never a bare runner beside it.
func TestRunner_NodeInstallsAsTheLockfileSays(t *testing.T) {
	t.Parallel()
	pkg := `{"scripts": {"test": "mocha test/"}, "devDependencies": {"mocha": "11"}}`
	for _, c := range []struct {
		lock, want, not string
	}{
		{"", "- run: npm install\n", "cache:"},
		{"package-lock.json", "cache: npm\n      - run: npm ci\n", "npm install"},
		{"yarn.lock", "cache: yarn\n      - run: yarn install --frozen-lockfile\n", "npm ci"},
		{"pnpm-lock.yaml", "corepack enable && pnpm install --frozen-lockfile", "cache:"},
	} {
		files := map[string]string{"package.json": pkg}
		if c.lock != "" {
			files[c.lock] = "{}"
		}
		r, err := runnerFor("mocha", fstest.MapFS(mapFS(files)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Setup, c.want) || strings.Contains(r.Setup, c.not) {
			t.Errorf("lock %q: setup\n%s\nwant %q, not %q", c.lock, r.Setup, c.want, c.not)
		}
		manager := map[string]string{"": "npm", "package-lock.json": "npm", "yarn.lock": "yarn", "pnpm-lock.yaml": "pnpm"}[c.lock]
		if !strings.HasSuffix(r.Run, " "+manager+" test") {
			t.Errorf("lock %q: the test step does not end with %s test:\n%s", c.lock, manager, r.Run)
		}
	}
}
