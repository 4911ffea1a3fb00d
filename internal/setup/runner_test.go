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
