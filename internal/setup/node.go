package setup

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
)

// nodeProject is what package.json and the lockfiles say about how the
// repository installs and runs its tests: the breaker's test step is the
// repository's own `npm test` (or yarn's, or pnpm's) with the runner's
// machine-readable reporter added, never a bare runner of its own.
type nodeProject struct {
	manager string // npm, yarn or pnpm
	lock    string // the lockfile found, "" for none
	berry   bool   // yarn 2+ (.yarnrc.yml)
	test    string // scripts.test, "" for none
	bare    string // the runner's own command, when there is no scripts.test
}

func readNodeProject(fsys fs.FS) (nodeProject, error) {
	var p nodeProject
	data, err := fs.ReadFile(fsys, "package.json")
	if err != nil {
		return p, fmt.Errorf("package.json: %w", err)
	}
	var pkg struct {
		Scripts        map[string]string `json:"scripts"`
		PackageManager string            `json:"packageManager"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return p, fmt.Errorf("package.json: %w; fix it, or name the runner with --runner", err)
	}
	p.test = strings.TrimSpace(pkg.Scripts["test"])
	p.manager = "npm"
	for _, l := range []struct{ file, manager string }{
		{"package-lock.json", "npm"}, {"npm-shrinkwrap.json", "npm"}, {"yarn.lock", "yarn"}, {"pnpm-lock.yaml", "pnpm"},
	} {
		if exists(fsys, l.file) {
			p.lock, p.manager = l.file, l.manager
			break
		}
	}
	if name, _, ok := strings.Cut(pkg.PackageManager, "@"); ok && (name == "yarn" || name == "pnpm" || name == "npm") {
		p.manager = name
	}
	p.berry = p.manager == "yarn" && exists(fsys, ".yarnrc.yml")
	return p, nil
}

// setup is the toolchain and the install the lockfile allows: npm ci (and
// the cache) only with a lockfile, npm install without one; yarn and pnpm
// frozen to theirs, through corepack.
func (p nodeProject) setup() string {
	with := "        with:\n          node-version: lts/*\n"
	var install string
	switch p.manager {
	case "yarn":
		if p.lock != "" {
			with += "          cache: yarn\n"
		}
		install = "      - run: yarn install --frozen-lockfile\n"
		if p.berry {
			install = "      - run: corepack enable && yarn install --immutable\n"
		}
	case "pnpm":
		install = "      - run: corepack enable && pnpm install --frozen-lockfile\n"
	default:
		install = "      - run: npm install\n"
		if p.lock != "" {
			with += "          cache: npm\n"
			install = "      - run: npm ci\n"
		}
	}
	return "      - uses: " + useSetupNode + "\n" + with + install
}

// run is the repository's test script with args passed to its runner.
func (p nodeProject) run(args string) string {
	if p.test == "" {
		return strings.TrimSpace(p.bare + " " + args)
	}
	switch p.manager {
	case "yarn":
		return strings.TrimSpace("yarn --silent test " + args)
	case "pnpm":
		return strings.TrimSpace("pnpm --silent test " + args)
	}
	if args == "" {
		return "npm test --silent"
	}
	return "npm test --silent -- " + args
}

// why says which command init chose, for init's output.
func (p nodeProject) why() string {
	lock := "no lockfile, so " + map[string]string{"npm": "npm install", "yarn": "yarn install", "pnpm": "pnpm install"}[p.manager] + " and no cache"
	if p.lock != "" {
		lock = p.lock + " decides the install"
	}
	if p.test == "" {
		return fmt.Sprintf("package.json has no scripts.test, so the tests run as %s; %s", p.bare, lock)
	}
	return fmt.Sprintf("the tests run as the repository runs them, %s (package.json's scripts.test: %q), with the reporter added; %s",
		p.run(""), p.test, lock)
}

// nodeRunner builds the Node runner of name on the repository's own test
// script (the runner's own command when package.json has none).
func nodeRunner(name string, p nodeProject) (Runner, error) {
	p.bare = map[string]string{"jest": "npx jest", "vitest": "npx vitest", "mocha": "npx mocha", "node": "node --test"}[name]
	r := Runner{Name: name, Setup: p.setup(), Why: p.why()}
	switch name {
	case "jest":
		// jest-junit from a folder of its own (the repository's install and
		// lockfile untouched), added by a preload to every jest the test
		// script starts — a script may start several (one per time zone,
		// say), and arguments after npm test reach only the last. Each
		// jest writes a file of its own.
		r.Title = "Jest (jest-junit)"
		r.Run = "[ -d \"$RUNNER_TEMP/breaker-jest/node_modules/jest-junit\" ] ||\n" +
			"  npm install --prefix \"$RUNNER_TEMP/breaker-jest\" --no-save --no-audit --no-fund --silent jest-junit@16\n" +
			"cat > \"$RUNNER_TEMP/breaker-jest/reporter.cjs\" <<'JS'\n" + jestPreload + "JS\n" +
			"JEST_JUNIT_OUTPUT_DIR=\"$PWD/test-results\" JEST_JUNIT_UNIQUE_OUTPUT_NAME=true \\\n" +
			"  NODE_OPTIONS=\"--require $RUNNER_TEMP/breaker-jest/reporter.cjs\" " + p.run("")
		r.Results = "junit*.xml"
	case "vitest":
		r.Title = "Vitest (JUnit XML)"
		r.Run = p.run("--run --reporter=default --reporter=junit --outputFile.junit=test-results/junit.xml")
		r.Results = "junit.xml"
	case "mocha":
		// mocha keeps the last --reporter given: the script's own is
		// replaced by TAP, which the log shows too.
		r.Title = "Mocha (TAP)"
		r.Run = "status=0\n" + p.run("--reporter tap") + " > test-results/mocha.tap || status=$?\ncat test-results/mocha.tap\nexit \"$status\""
		r.Results = "mocha.tap"
	case "node":
		// node --test takes reporters from NODE_OPTIONS, wherever the
		// script puts its files.
		r.Title = "node:test (TAP)"
		r.Run = "NODE_OPTIONS=\"--test-reporter=spec --test-reporter-destination=stdout --test-reporter=tap --test-reporter-destination=$PWD/test-results/node-test.tap\" \\\n  " + p.run("")
		r.Results = "node-test.tap"
	default:
		return Runner{}, fmt.Errorf("--runner %q is not a Node runner", name)
	}
	return r, nil
}

// jestPreload is the preload the Jest step writes: when the process is
// jest (any of those the test script starts), it adds the default
// reporter and jest-junit to its arguments, unless they name jest-junit
// already.
const jestPreload = `// breaker init: jest-junit on every jest the test script starts
const path = require('path');
if (/(^|[\\/])jest(\.js)?$/.test(process.argv[1] || '') && !process.argv.some((a) => a.includes('jest-junit'))) {
  process.argv.push('--reporters=default', '--reporters=' + path.join(__dirname, 'node_modules', 'jest-junit'));
}
`
