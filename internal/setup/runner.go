package setup

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// Runner is how a repository's tests run in CI and where their results
// land: every runner writes its result files into the test-results
// directory, which the tests' job uploads as the artifact the breaker
// reads.
type Runner struct {
	// Name is the --runner value.
	Name string
	// Title says what runs, for people.
	Title string
	// Setup are the steps before the tests (the toolchain), as YAML list
	// items at the steps' indentation; empty when the runner image has it.
	Setup string
	// Run is the test step's script; it writes into test-results/.
	Run string
	// Results is the glob, inside the uploaded directory, of the files the
	// breaker reads.
	Results string
	// Wrap, when set, makes the test script of one command line of the
	// repository's: the reporter added around it, the command unchanged.
	Wrap func(cmd string) string
	// Why says which command init chose and why, when it chose among
	// several; init prints it.
	Why string
	// Extra are files the runner needs in the repository (nextest's JUnit
	// profile), written only when absent.
	Extra []File
}

// The third-party actions init writes, pinned from pins.txt (a commit no
// one can move, its release in a comment).
var (
	useCheckout       = uses("actions/checkout")
	useUpload         = uses("actions/upload-artifact")
	useDownload       = uses("actions/download-artifact")
	useSetupGo        = uses("actions/setup-go")
	useSetupPython    = uses("actions/setup-python")
	useSetupNode      = uses("actions/setup-node")
	useSetupJava      = uses("actions/setup-java")
	useSetupDotnet    = uses("actions/setup-dotnet")
	useCreateAppToken = uses("actions/create-github-app-token")
)

// RunnerNames are the accepted --runner values, in the order help lists them.
var RunnerNames = []string{"go", "pytest", "jest", "vitest", "mocha", "node", "dotnet", "maven", "gradle", "cargo"}

// javaSetup is the JDK, with the build tool's cache.
func javaSetup(cache string) string {
	return `      - uses: ` + useSetupJava + `
        with:
          distribution: temurin
          java-version: "21"
          cache: ` + cache + "\n"
}

// runnerFor builds the runner of name for the repository in fsys.
func runnerFor(name string, fsys fs.FS) (Runner, error) {
	switch name {
	case "go":
		return Runner{Name: name, Title: "Go (go test -json)",
			Setup: `      - uses: ` + useSetupGo + `
        with:
          go-version-file: go.mod
`,
			Run:     "go test -json ./... > test-results/go-test.json",
			Results: "go-test.json"}, nil
	case "pytest":
		return pytestRunner(fsys), nil
	case "jest", "vitest", "mocha", "node":
		p, err := readNodeProject(fsys)
		if err != nil {
			return Runner{}, err
		}
		return nodeRunner(name, p)
	case "dotnet":
		return Runner{Name: name, Title: ".NET (dotnet test, TRX)",
			Setup: `      - uses: ` + useSetupDotnet + `
        with:
          dotnet-version: 8.0.x
`,
			Run:     `dotnet test --logger trx --results-directory test-results`,
			Results: "*.trx"}, nil
	case "maven":
		return Runner{Name: name, Title: "Maven (Surefire JUnit XML)",
			Setup: javaSetup("maven"),
			Run: "status=0\nmvn -B -fae test || status=$?\n" +
				"find . -path '*/target/surefire-reports/TEST-*.xml' -exec cp {} test-results/ \\;\nexit \"$status\"",
			Results: "TEST-*.xml"}, nil
	case "gradle":
		gradle := "gradle"
		if exists(fsys, "gradlew") {
			gradle = "./gradlew"
		}
		return Runner{Name: name, Title: "Gradle (JUnit XML)",
			Setup: javaSetup("gradle"),
			Run: "status=0\n" + gradle + " test --continue || status=$?\n" +
				"find . -path '*/build/test-results/*/TEST-*.xml' -exec cp {} test-results/ \\;\nexit \"$status\"",
			Results: "TEST-*.xml"}, nil
	case "cargo":
		return Runner{Name: name, Title: "cargo via nextest (JUnit XML)",
			Setup: "      - run: curl -LsSf https://get.nexte.st/latest/linux | tar zxf - -C \"${CARGO_HOME:-$HOME/.cargo}/bin\"\n",
			Run: "status=0\ncargo nextest run --profile ci || status=$?\n" +
				"cp target/nextest/ci/junit.xml test-results/ || true\nexit \"$status\"",
			Results: "junit.xml",
			Extra: []File{{Path: ".config/nextest.toml", Content: "# The breaker reads the tests' JUnit XML (breaker init wrote this profile).\n" +
				"[profile.ci]\nfail-fast = false\n\n[profile.ci.junit]\npath = \"junit.xml\"\n"}}}, nil
	}
	return Runner{}, fmt.Errorf("--runner %q: want one of %s", name, strings.Join(RunnerNames, ", "))
}

// Detect names the runner of the repository in fsys from its build files.
// It fails, naming --runner and what it found, when it finds none or more
// than one.
func Detect(fsys fs.FS) (string, error) {
	var found []string
	add := func(name, why string) { found = append(found, name+" ("+why+")") }
	if exists(fsys, "go.mod") {
		add("go", "go.mod")
	}
	for _, f := range []string{"pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "requirements.txt", "tox.ini"} {
		if exists(fsys, f) {
			add("pytest", f)
			break
		}
	}
	if exists(fsys, "package.json") {
		name, err := nodeFramework(fsys)
		if err != nil {
			return "", err
		}
		add(name, "package.json")
	}
	if dotnet, _ := fs.Glob(fsys, "*.sln"); len(dotnet) > 0 {
		add("dotnet", dotnet[0])
	} else if proj, _ := fs.Glob(fsys, "*.csproj"); len(proj) > 0 {
		add("dotnet", proj[0])
	}
	if exists(fsys, "pom.xml") {
		add("maven", "pom.xml")
	}
	for _, f := range []string{"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"} {
		if exists(fsys, f) {
			add("gradle", f)
			break
		}
	}
	if exists(fsys, "Cargo.toml") {
		add("cargo", "Cargo.toml")
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("found no build file of a runner the breaker knows (go.mod, pyproject.toml, package.json, *.sln, pom.xml, build.gradle, Cargo.toml): name it with --runner %s", strings.Join(RunnerNames, "|"))
	case 1:
		name, _, _ := strings.Cut(found[0], " ")
		return name, nil
	}
	sort.Strings(found)
	return "", fmt.Errorf("found the build files of several runners: %s; name the one whose tests the agent runs with --runner", strings.Join(found, ", "))
}

// nodeFramework reads package.json for its test framework: vitest, jest or
// mocha among its dependencies, else node --test in its test script.
func nodeFramework(fsys fs.FS) (string, error) {
	data, err := fs.ReadFile(fsys, "package.json")
	if err != nil {
		return "", fmt.Errorf("package.json: %w", err)
	}
	var pkg struct {
		Dependencies    map[string]any    `json:"dependencies"`
		DevDependencies map[string]any    `json:"devDependencies"`
		Scripts         map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", fmt.Errorf("package.json: %w; fix it, or name the runner with --runner", err)
	}
	has := func(dep string) bool {
		_, a := pkg.Dependencies[dep]
		_, b := pkg.DevDependencies[dep]
		return a || b
	}
	test := pkg.Scripts["test"]
	for _, name := range []string{"vitest", "jest", "mocha"} {
		if has(name) {
			return name, nil
		}
	}
	if strings.Contains(test, "node --test") {
		return "node", nil
	}
	return "", errors.New("package.json names no test framework the breaker knows (vitest, jest or mocha among its dependencies, or node --test in scripts.test): name it with --runner")
}

func exists(fsys fs.FS, name string) bool {
	_, err := fs.Stat(fsys, name)
	return err == nil
}

// pytestRunner runs the tests as the repository does: through tox when its
// pytest command takes {posargs} (the JUnit flag rides after --), else
// pytest with the project's install; the Python is .python-version's when
// there is one. Why says which it chose.
func pytestRunner(fsys fs.FS) Runner {
	version := "        with:\n          python-version: \"3.x\"\n"
	which := "the newest Python 3 (no .python-version)"
	if exists(fsys, ".python-version") {
		version = "        with:\n          python-version-file: .python-version\n"
		which = "the Python of .python-version"
	}
	r := Runner{Name: "pytest", Title: "pytest (JUnit XML)", Results: "junit.xml"}
	if posargs(fsys, "tox") && exists(fsys, "tox.ini") {
		r.Setup = "      - uses: " + useSetupPython + "\n" + version + "      - run: python -m pip install tox\n"
		r.Run = "tox -e py -- --junitxml=\"$PWD/test-results/junit.xml\""
		r.Why = "the tests run as tox.ini runs them (tox -e py, on " + which + "), the JUnit flag passed through {posargs}"
		return r
	}
	deps := "python -m pip install pytest"
	switch {
	case exists(fsys, "requirements.txt"):
		deps = "python -m pip install -r requirements.txt pytest"
	case exists(fsys, "pyproject.toml"), exists(fsys, "setup.py"):
		deps = "python -m pip install -e . pytest"
	}
	r.Setup = "      - uses: " + useSetupPython + "\n" + version + "      - run: " + deps + "\n"
	r.Run = "python -m pytest --junitxml=test-results/junit.xml"
	r.Why = "the tests run as python -m pytest on " + which + ", after " + deps
	if exists(fsys, "tox.ini") {
		r.Why += " (tox.ini's pytest command takes no {posargs}, so init does not run tox)"
	}
	return r
}
