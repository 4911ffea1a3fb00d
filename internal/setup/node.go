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

// run is the repository's test command: its package manager's test
// script, else the runner's own command.
func (p nodeProject) run() string {
	if p.test == "" {
		return p.bare
	}
	return map[string]string{"npm": "npm test", "yarn": "yarn test", "pnpm": "pnpm test"}[p.manager]
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
	return fmt.Sprintf("the tests run as the repository runs them, %s (package.json's scripts.test: %q), with the reporter added to every runner it starts; %s",
		p.run(), p.test, lock)
}

// nodeRunner builds the Node runner of name on the repository's own test
// command (the runner's own when package.json has none). The reporter the
// breaker reads rides in the environment, so that every runner the command
// starts reports however many it starts and wherever (a script that loops
// over time zones, one that wraps npm test in a coverage tool), and the
// command itself stays the repository's: see wrap.
func nodeRunner(name string, p nodeProject) (Runner, error) {
	p.bare = map[string]string{"jest": "npx jest", "vitest": "npx vitest run", "mocha": "npx mocha", "node": "node --test"}[name]
	r := Runner{Name: name, Setup: p.setup(), Why: p.why()}
	switch name {
	case "jest":
		r.Title, r.Results = "Jest (jest-junit)", "junit*.xml"
	case "vitest":
		r.Title, r.Results = "Vitest (JUnit XML)", "vitest-*.xml"
	case "mocha":
		r.Title, r.Results = "Mocha (xunit XML)", "mocha-*.xml"
	case "node":
		r.Title, r.Results = "node:test (TAP)", "node-test.tap"
	default:
		return Runner{}, fmt.Errorf("--runner %q is not a Node runner", name)
	}
	r.Wrap = func(cmd string) string { return wrapNode(name, cmd) }
	r.Run = r.Wrap(p.run())
	return r, nil
}

// wrapNode is the script that runs cmd (one command line of the
// repository's) with the runner's reporter: node:test takes reporters from
// NODE_OPTIONS; Jest, Vitest and Mocha from arguments, which a preload
// (nodePreload) adds to each of their processes. jest-junit comes from a
// folder of its own, the repository's install and lockfile untouched.
func wrapNode(name, cmd string) string {
	if name == "node" {
		return "NODE_OPTIONS=\"--test-reporter=spec --test-reporter-destination=stdout --test-reporter=tap --test-reporter-destination=$PWD/test-results/node-test.tap\" \\\n  " + cmd
	}
	var b strings.Builder
	b.WriteString("mkdir -p \"$RUNNER_TEMP/breaker-node\"\n")
	if name == "jest" {
		b.WriteString("[ -d \"$RUNNER_TEMP/breaker-node/node_modules/jest-junit\" ] ||\n" +
			"  npm install --prefix \"$RUNNER_TEMP/breaker-node\" --no-save --no-audit --no-fund --silent jest-junit@16\n")
	}
	b.WriteString("cat > \"$RUNNER_TEMP/breaker-node/reporters.cjs\" <<'JS'\n" + nodePreload + "JS\n")
	env := "BREAKER_RESULTS=\"$PWD/test-results\" "
	if name == "jest" {
		env += "JEST_JUNIT_OUTPUT_DIR=\"$PWD/test-results\" JEST_JUNIT_UNIQUE_OUTPUT_NAME=true "
	}
	b.WriteString(env + "\\\n  NODE_OPTIONS=\"--require $RUNNER_TEMP/breaker-node/reporters.cjs\" " + cmd)
	return b.String()
}

// nodePreload is the preload the test step writes: in a Jest, Vitest or
// Mocha process it adds the reporter the breaker reads to the arguments,
// writing into BREAKER_RESULTS a file of the process's own (the last
// --reporter wins in Mocha and Vitest, so the script's own is replaced;
// Jest keeps its default beside jest-junit). Any other process it leaves
// alone.
const nodePreload = `// breaker init: the reporter the breaker reads, in every test runner the command starts
const path = require('path');
const out = process.env.BREAKER_RESULTS;
const bin = process.argv[1] || '';
const has = (s) => process.argv.some((a) => a.includes(s));
if (out && /(^|[\\/])jest(\.js)?$/.test(bin) && !has('jest-junit')) {
  process.argv.push('--reporters=default', '--reporters=' + path.join(__dirname, 'node_modules', 'jest-junit'));
} else if (out && /(^|[\\/])_?mocha(\.js)?$/.test(bin) && !has('--reporter=xunit')) {
  process.argv.push('--reporter=xunit', '--reporter-option=output=' + path.join(out, 'mocha-' + process.pid + '.xml'));
} else if (out && /(^|[\\/])vitest(\.m?js)?$/.test(bin) && !has('--outputFile.junit')) {
  process.argv.push('--reporter=default', '--reporter=junit', '--outputFile.junit=' + path.join(out, 'vitest-' + process.pid + '.xml'));
}
`
