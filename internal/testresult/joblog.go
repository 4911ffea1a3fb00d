package testresult

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/rx"
)

// Reading a CI job's log: what `breaker replay` falls back to when a past
// run uploaded no result files. A log names the failing tests of the
// runners whose console output is well known, and sometimes the passing
// ones (go test -v, pytest -v, a single-file jest run, vitest, mocha's and
// node:test's spec reporters, node:test's TAP); it never says every test
// that ran. So a reading is partial: a test it does not name is unknown,
// never absent.
//
// Written by hand (no library reads runners' consoles): each runner is a
// few line shapes, taken from the runners' own output
// (testdata/joblogs/README.md says how each file was made). Names are
// written as the runner's result file would give them, so a line of work
// read partly from artifacts and partly from logs names one test one way.

// JobLog is what a job's log says about its tests.
type JobLog struct {
	// Runners are the runners recognised, in the order first seen.
	Runners []string
	// Tests are the tests the log names, each once (its worst status).
	Tests []Test
}

// Failing returns the failing and erroring tests.
func (l JobLog) Failing() []Test {
	var out []Test
	for _, t := range l.Tests {
		if t.Status.Failed() {
			out = append(out, t)
		}
	}
	return out
}

// The bounds of a reading: the lines read, a test name's length, the tests
// kept.
const (
	maxLogLines    = 2_000_000
	maxLogNameLen  = 1024
	maxLogTests    = 100_000
	maxLogLineRead = 64 << 10
)

var (
	ansi = rx.Lazy(`\x1b\[[0-9;?]*[A-Za-z]`)

	goResult  = rx.Lazy(`^(\s*)--- (FAIL|PASS|SKIP): (\S+) \(`)
	goPackage = rx.Lazy(`^(FAIL|ok)\s+(\S+)\s+(\(cached\)|[0-9.]+s|\[)`)

	pytestLine    = rx.Lazy(`^(\S+\.py)::(\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b`)
	pytestSummary = rx.Lazy(`^(FAILED|ERROR) (\S+\.py)::(\S+?)(?: - .*)?$`)

	jestFile   = rx.Lazy(`^(PASS|FAIL) (\S+)`)
	jestTest   = rx.Lazy(`^(\s+)(✓|✕|○|√|×) (.+?)(?: \(\d+(?:\.\d+)? ?m?s\))?$`)
	jestBullet = rx.Lazy(`^\s*● (.+)$`)

	vitestTest = rx.Lazy(`^\s+(✓|×|↓) (.+? > .+?)(?: \d+(?:\.\d+)?m?s)?$`)
	vitestFail = rx.Lazy(`^\s*FAIL\s+(\S+) > (.+)$`)
	vitestFile = rx.Lazy(`^\s*(?:❯|✓|×) (\S+\.(?:[cm]?[jt]sx?)) \(\d+ tests?`)

	mochaPass  = rx.Lazy(`^(\s+)(✔|✓) (.+?)(?: \(\d+ms\))?$`)
	mochaFail  = rx.Lazy(`^(\s+)(\d+)\) (.+)$`)
	mochaCount = rx.Lazy(`^\s+\d+ (passing|failing|pending)\b`)

	nodeSuite    = rx.Lazy(`^(\s*)▶ (.+)$`)
	nodeTest     = rx.Lazy(`^(\s*)(✔|✖|﹣) (.+?)(?: \(\d+(?:\.\d+)?m?s\))?(?: # .*)?$`)
	nodeDuration = rx.Lazy(`\(\d+\.\d+ms\)$`)
	tapSub       = rx.Lazy(`^(\s*)# Subtest: (.+)$`)
	tapResult    = rx.Lazy(`^(\s*)(ok|not ok) \d+ - (.+?)(?: # (?i:skip|todo).*)?$`)

	dotnetLine = rx.Lazy(`^\s+(Passed|Failed|Skipped) (\S+) \[`)

	surefire3 = rx.Lazy(`^\[ERROR\] (\S+)\.([^.\s]+) -- Time elapsed: .*<<< (FAILURE|ERROR)!`)
	surefire2 = rx.Lazy(`^(?:\[ERROR\] )?(\w+)\(([\w.$]+)\)\s+Time elapsed: .*<<< (FAILURE|ERROR)!`)
	gradle    = rx.Lazy(`^([\w.$]+) > (.+?) (FAILED|PASSED|SKIPPED)$`)
)

// ReadJobLog reads a job's log (GitHub's plain-text download, timestamps
// and colours included). It never fails: a log it cannot read names no
// test.
func ReadJobLog(data []byte) JobLog {
	r := logReader{index: map[string]int{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxLogLineRead)
	for n := 0; n < maxLogLines; n++ {
		if !sc.Scan() {
			if sc.Err() == bufio.ErrTooLong {
				continue // an over-long line is skipped, the rest still read
			}
			break
		}
		line := stripStamp(sc.Bytes())
		if bytes.IndexByte(line, 0x1b) >= 0 {
			line = ansi().ReplaceAll(line, nil)
		}
		line = bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("##[error]")), []byte("##[warning]"))
		r.line(string(bytes.TrimRight(line, " \r")))
	}
	r.flushGo("")
	return JobLog{Runners: r.runners, Tests: r.tests}
}

// stripStamp drops the time GitHub prefixes each line of a job's log with
// (2026-11-25T10:00:01.1234567Z and a space), written out rather than a
// regular expression: it runs on every line.
func stripStamp(line []byte) []byte {
	const shape = "dddd-dd-ddTdd:dd:dd"
	if len(line) < len(shape)+1 {
		return line
	}
	for i := range len(shape) {
		c := line[i]
		if shape[i] == 'd' && (c < '0' || c > '9') || shape[i] != 'd' && c != shape[i] {
			return line
		}
	}
	i := len(shape)
	if line[i] == '.' {
		for i++; i < len(line) && line[i] >= '0' && line[i] <= '9'; i++ {
		}
	}
	if i >= len(line) || line[i] != 'Z' {
		return line
	}
	i++
	if i < len(line) && line[i] == ' ' {
		i++
	}
	return line[i:]
}

type logReader struct {
	runners []string
	tests   []Test
	index   map[string]int

	goPending []Test // go tests seen before their package's FAIL/ok line

	jestFile   string // the file of jest's "FAIL file" header, while its tree is read
	vitestFile string // the file of vitest's "❯ file (n tests)" line
	jestStack  []indented
	mochaStack []indented
	mochaFails bool // in mocha's numbered failure list
	mochaTitle []string
	nodeStack  []indented
	nodeDone   bool // after node:test's "failing tests:" repeat
	tapStack   []indented
}

type indented struct {
	depth    int
	name     string
	children bool // a TAP subtest with subtests of its own: a suite
}

func (r *logReader) runner(name string) {
	for _, n := range r.runners {
		if n == name {
			return
		}
	}
	r.runners = append(r.runners, name)
}

// add records a test, keeping its worst status (error, fail, pass, skip).
func (r *logReader) add(runner, name string, status breaker.TestStatus) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > maxLogNameLen {
		return
	}
	r.runner(runner)
	if i, ok := r.index[name]; ok {
		if worse(status, r.tests[i].Status) {
			r.tests[i].Status = status
		}
		return
	}
	if len(r.tests) >= maxLogTests {
		return
	}
	r.index[name] = len(r.tests)
	r.tests = append(r.tests, Test{Name: name, Status: status})
}

func worse(a, b breaker.TestStatus) bool {
	rank := map[breaker.TestStatus]int{breaker.StatusSkip: 0, breaker.StatusPass: 1, breaker.StatusFail: 2, breaker.StatusError: 3}
	return rank[a] > rank[b]
}

func (r *logReader) line(line string) {
	switch {
	case r.goLine(line), r.pytestLine(line), r.javaLine(line), r.dotnetLine(line):
	case r.vitestLine(line):
	case r.jestLine(line):
	case r.nodeLine(line):
	case r.mochaLine(line):
	}
}

// goLine reads go test's "--- FAIL: TestX (0.00s)" lines (indented for
// subtests) and names them after the package its FAIL/ok line gives.
func (r *logReader) goLine(line string) bool {
	if !strings.Contains(line, "--- ") && !strings.HasPrefix(line, "FAIL") && !strings.HasPrefix(line, "ok") {
		return false // the shapes below need one of these: most lines have none
	}
	if m := goResult().FindStringSubmatch(line); m != nil {
		st := map[string]breaker.TestStatus{"FAIL": breaker.StatusFail, "PASS": breaker.StatusPass, "SKIP": breaker.StatusSkip}[m[2]]
		r.goPending = append(r.goPending, Test{Name: m[3], Status: st})
		return true
	}
	if m := goPackage().FindStringSubmatch(line); m != nil {
		r.flushGo(m[2])
		return true
	}
	return false
}

func (r *logReader) flushGo(pkg string) {
	for _, t := range r.goPending {
		name := t.Name
		if pkg != "" {
			name = pkg + "." + name
		}
		r.add("go test", name, t.Status)
	}
	r.goPending = r.goPending[:0]
}

// pytestLine reads pytest -v's "path.py::test PASSED" lines and the short
// summary's "FAILED path.py::test - message", naming a test as
// pytest's JUnit XML does: the module path dotted, then the test.
func (r *logReader) pytestLine(line string) bool {
	if !strings.Contains(line, ".py::") {
		return false
	}
	if m := pytestLine().FindStringSubmatch(line); m != nil {
		st := map[string]breaker.TestStatus{"PASSED": breaker.StatusPass, "FAILED": breaker.StatusFail, "ERROR": breaker.StatusError,
			"SKIPPED": breaker.StatusSkip, "XFAIL": breaker.StatusSkip, "XPASS": breaker.StatusPass}[m[3]]
		r.add("pytest", pytestName(m[1], m[2]), st)
		return true
	}
	if m := pytestSummary().FindStringSubmatch(line); m != nil {
		st := breaker.StatusFail
		if m[1] == "ERROR" {
			st = breaker.StatusError
		}
		r.add("pytest", pytestName(m[2], m[3]), st)
		return true
	}
	return false
}

func pytestName(file, test string) string {
	mod := strings.ReplaceAll(strings.TrimSuffix(file, ".py"), "/", ".")
	return mod + "." + strings.ReplaceAll(test, "::", ".")
}

// javaLine reads Maven Surefire's failure lines (3.x "Class.method -- Time
// elapsed: ... <<< FAILURE!", 2.x "method(Class)  Time elapsed: ...") and
// Gradle's "Class > method() FAILED", named classname.method as their
// JUnit XML is.
func (r *logReader) javaLine(line string) bool {
	if !strings.Contains(line, "<<< ") && !strings.Contains(line, " > ") {
		return false
	}
	if m := surefire3().FindStringSubmatch(line); m != nil {
		r.add("maven surefire", m[1]+"."+m[2], javaStatus(m[3]))
		return true
	}
	if m := surefire2().FindStringSubmatch(line); m != nil {
		r.add("maven surefire", m[2]+"."+m[1], javaStatus(m[3]))
		return true
	}
	if m := gradle().FindStringSubmatch(line); m != nil {
		st := map[string]breaker.TestStatus{"FAILED": breaker.StatusFail, "PASSED": breaker.StatusPass, "SKIPPED": breaker.StatusSkip}[m[3]]
		r.add("gradle", m[1]+"."+strings.TrimSuffix(m[2], "()"), st)
		return true
	}
	return false
}

func javaStatus(s string) breaker.TestStatus {
	if s == "ERROR" {
		return breaker.StatusError
	}
	return breaker.StatusFail
}

// dotnetLine reads `dotnet test`'s "  Failed Namespace.Class.Method [12 ms]"
// lines (and Passed/Skipped at normal verbosity).
func (r *logReader) dotnetLine(line string) bool {
	if !strings.Contains(line, "Passed ") && !strings.Contains(line, "Failed ") && !strings.Contains(line, "Skipped ") {
		return false
	}
	m := dotnetLine().FindStringSubmatch(line)
	if m == nil {
		return false
	}
	st := map[string]breaker.TestStatus{"Passed": breaker.StatusPass, "Failed": breaker.StatusFail, "Skipped": breaker.StatusSkip}[m[1]]
	r.add("dotnet test", m[2], st)
	return true
}

// vitestLine reads vitest's "✓ describe > test" and "× describe > test"
// lines under a file, and "FAIL  file > describe > test", named as its
// JUnit reporter does: the file, a dot, the title path joined by " > ".
func (r *logReader) vitestLine(line string) bool {
	if !strings.Contains(line, "FAIL") && !strings.ContainsAny(line, "✓×↓❯") {
		return false
	}
	if m := vitestFail().FindStringSubmatch(line); m != nil {
		r.add("vitest", m[1]+"."+m[2], breaker.StatusFail)
		return true
	}
	if m := vitestFile().FindStringSubmatch(line); m != nil {
		r.vitestFile, r.jestFile = m[1], ""
		return true
	}
	if m := vitestTest().FindStringSubmatch(line); m != nil && r.vitestFile != "" {
		st := map[string]breaker.TestStatus{"✓": breaker.StatusPass, "×": breaker.StatusFail, "↓": breaker.StatusSkip}[m[1]]
		r.add("vitest", r.vitestFile+"."+m[2], st)
		return true
	}
	return false
}

// jestLine reads jest's "FAIL file" header, its verbose tree (a describe a
// line, "✓ test" and "✕ test" under it) and its "● describe › test"
// failure headings, named as jest-junit does: the title path joined by
// spaces.
func (r *logReader) jestLine(line string) bool {
	if m := jestFile().FindStringSubmatch(line); m != nil {
		r.jestFile, r.vitestFile = m[2], ""
		r.jestStack = nil
		return true
	}
	if r.jestFile == "" {
		return false
	}
	if m := jestBullet().FindStringSubmatch(line); m != nil {
		if parts := strings.Split(m[1], " › "); len(parts) > 0 && !strings.HasPrefix(m[1], "Console") {
			r.add("jest", strings.Join(parts, " "), breaker.StatusFail)
		}
		return true
	}
	if m := jestTest().FindStringSubmatch(line); m != nil {
		depth := len(m[1])
		r.jestStack = popTo(r.jestStack, depth)
		st := map[string]breaker.TestStatus{"✓": breaker.StatusPass, "√": breaker.StatusPass, "✕": breaker.StatusFail, "×": breaker.StatusFail, "○": breaker.StatusSkip}[m[2]]
		r.add("jest", joinNames(r.jestStack, m[3], " "), st)
		return true
	}
	if line == "" {
		return false
	}
	if t := strings.TrimLeft(line, " "); t != line && !strings.ContainsAny(t[:1], "●>|") && len(line)-len(t) <= 40 {
		depth := len(line) - len(t)
		r.jestStack = append(popTo(r.jestStack, depth), indented{depth: depth, name: t})
		return true
	}
	r.jestFile = ""
	return false
}

// nodeLine reads node:test's spec reporter ("▶ suite", "✔ test", "✖ test")
// and its TAP reporter ("# Subtest: name", "ok 1 - name"), named as its
// JUnit reporter does: the title path joined by " > ".
func (r *logReader) nodeLine(line string) bool {
	if strings.HasPrefix(line, "✖ failing tests:") {
		r.nodeDone = true // the failures again, without their suites
		return true
	}
	if m := nodeSuite().FindStringSubmatch(line); m != nil {
		r.nodeDone = false
		r.nodeStack = append(popTo(r.nodeStack, len(m[1])), indented{depth: len(m[1]), name: m[2]})
		return true
	}
	// node:test's lines always carry a fractional duration, mocha's (the
	// same ✔) never: mocha's spec reporter gives slow tests whole ms.
	if m := nodeTest().FindStringSubmatch(line); m != nil && !r.nodeDone && (len(r.nodeStack) > 0 || nodeDuration().MatchString(line)) {
		depth := len(m[1])
		if n := len(r.nodeStack); n > 0 && r.nodeStack[n-1].depth == depth && r.nodeStack[n-1].name == m[3] {
			r.nodeStack = r.nodeStack[:n-1] // "✖ cart (1.9ms)": the suite's own end
			return true
		}
		r.nodeStack = popTo(r.nodeStack, depth)
		st := map[string]breaker.TestStatus{"✔": breaker.StatusPass, "✖": breaker.StatusFail, "﹣": breaker.StatusSkip}[m[2]]
		r.add("node:test", joinNames(r.nodeStack, m[3], " > "), st)
		return true
	}
	if m := tapSub().FindStringSubmatch(line); m != nil {
		depth := len(m[1])
		r.tapStack = popTo(r.tapStack, depth)
		if n := len(r.tapStack); n > 0 {
			r.tapStack[n-1].children = true
		}
		r.tapStack = append(r.tapStack, indented{depth: depth, name: m[2]})
		return true
	}
	if m := tapResult().FindStringSubmatch(line); m != nil && len(r.tapStack) > 0 {
		depth := len(m[1])
		n := len(r.tapStack)
		suite := r.tapStack[n-1].depth == depth && r.tapStack[n-1].children
		r.tapStack = popTo(r.tapStack, depth)
		if suite {
			return true // a suite's own line: its tests are named
		}
		st := breaker.StatusPass
		if m[2] == "not ok" {
			st = breaker.StatusFail
		}
		if strings.Contains(strings.ToLower(line), "# skip") {
			st = breaker.StatusSkip
		}
		r.add("node:test", joinNames(r.tapStack, m[3], " > "), st)
		return true
	}
	return false
}

// mochaLine reads mocha's spec reporter: "✔ test" under indented describe
// lines, and the numbered failure list ("1) describe" then the rest of the
// title path on deeper lines, ending with a colon), named as
// mocha-junit-reporter does: the title path joined by spaces.
func (r *logReader) mochaLine(line string) bool {
	if mochaCount().MatchString(line) {
		if strings.Contains(line, "failing") {
			r.mochaFails = true
		}
		return true
	}
	if r.mochaFails {
		if m := mochaFail().FindStringSubmatch(line); m != nil {
			r.mochaTitle = []string{strings.TrimSuffix(m[3], ":")}
			if strings.HasSuffix(m[3], ":") {
				r.add("mocha", strings.Join(r.mochaTitle, " "), breaker.StatusFail)
				r.mochaTitle = nil
			}
			return true
		}
		if r.mochaTitle != nil {
			t := strings.TrimSpace(line)
			if t == "" {
				r.mochaTitle = nil
				return true
			}
			r.mochaTitle = append(r.mochaTitle, strings.TrimSuffix(t, ":"))
			if strings.HasSuffix(t, ":") {
				r.add("mocha", strings.Join(r.mochaTitle, " "), breaker.StatusFail)
				r.mochaTitle = nil
			}
			return true
		}
		return false
	}
	if m := mochaPass().FindStringSubmatch(line); m != nil {
		depth := len(m[1])
		r.mochaStack = popTo(r.mochaStack, depth)
		r.add("mocha", joinNames(r.mochaStack, m[3], " "), breaker.StatusPass)
		return true
	}
	if m := mochaFail().FindStringSubmatch(line); m != nil {
		r.mochaStack = popTo(r.mochaStack, len(m[1]))
		return true // named in the failure list, with its whole title
	}
	if t := strings.TrimLeft(line, " "); t != "" && t != line && len(line)-len(t) <= 40 {
		depth := len(line) - len(t)
		r.mochaStack = append(popTo(r.mochaStack, depth), indented{depth: depth, name: t})
		return true
	}
	return false
}

// popTo drops the entries at depth or deeper.
func popTo(stack []indented, depth int) []indented {
	for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
		stack = stack[:len(stack)-1]
	}
	return stack
}

func joinNames(stack []indented, name, sep string) string {
	parts := make([]string, 0, len(stack)+1)
	for _, s := range stack {
		parts = append(parts, s.name)
	}
	return strings.Join(append(parts, name), sep)
}
