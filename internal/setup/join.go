package setup

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/greenlight-ci/breaker/internal/rx"
)

// Joined is the repository's own test workflow with what the breaker needs
// added to its test job: the runner's machine-readable reporter on the
// repository's own test command, and an upload of the results. Nothing
// else in the file changes.
type Joined struct {
	// Path is the workflow's file; Name is what workflow_run follows it by
	// (its name:, else its path, as GitHub names it).
	Path, Name string
	// Job is the test job's id; Command the test line found in it.
	Job, Command string
	// Old and New are the file before and after.
	Old, New string
	// Matrix: the test job is a matrix, each leg uploading its results as
	// test-results-<leg index>, which the breaker reads together.
	Matrix bool
	// at is the test line's index in Old, repl what replaces it, last the
	// step's last line, after which upload is inserted.
	at, last     int
	repl, upload []string
}

// maxWorkflowBytes bounds what init reads of one workflow file.
const maxWorkflowBytes = 1 << 20

// exprRE is a GitHub expression, ${{ … }}: its || and && are not the
// shell's.
var exprRE = rx.Lazy(`\$\{\{.*?\}\}`)

// cmdStart is where a command starts: the line's start or after a shell
// operator, past VAR=value assignments.
const cmdStart = `(^|[;&|(]\s*)([A-Za-z_][A-Za-z0-9_]*=\S*\s+)*`

// npmTest is a package manager's test script.
const npmTest = `(npm (run |run-script )?\S*test\S*|npm t|yarn (run )?\S*test\S*|pnpm (run )?\S*test\S*)(\s|$)`

// testCommandRE finds the line of a step's run: that runs the tests, per
// runner.
var testCommandRE = map[string]func() *regexp.Regexp{
	"go":     rx.Lazy(cmdStart + `(go test|make( \S+)* \S*test\S*)(\s|$)`),
	"jest":   rx.Lazy(cmdStart + npmTest),
	"vitest": rx.Lazy(cmdStart + npmTest),
	"mocha":  rx.Lazy(cmdStart + npmTest),
	"node":   rx.Lazy(cmdStart + npmTest),
	"pytest": rx.Lazy(cmdStart + `(uv run (-\S+ )*)?(python3? -m pytest|pytest|tox|nox)\b`),
}

// findJoin looks through .github/workflows for the workflows that run the
// tests on pull_request and joins the first (by path). It returns nil and
// a note saying why when there is none it can patch.
func findJoin(fsys fs.FS, runner Runner, repo fs.FS) (joined *Joined, notes, blocked []string) {
	re, ok := testCommandRE[runner.Name]
	if !ok {
		re = detectOnlyRE[runner.Name]
	}
	var paths []string
	for _, glob := range []string{".github/workflows/*.yml", ".github/workflows/*.yaml"} {
		m, _ := fs.Glob(fsys, glob)
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	callers := reusableCallers(fsys, paths)
	var found []*Joined
	for _, p := range paths {
		switch path.Base(p) {
		case "agent-ci.yml", "breaker.yml", "breaker-commands.yml", "breaker-cleanup.yml":
			continue // init's own
		}
		info, err := fs.Stat(fsys, p)
		if err != nil || info.Size() > maxWorkflowBytes {
			continue
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			continue
		}
		j, why := joinWorkflow(p, string(data), runner, re(), repo, callers[p])
		switch {
		case j != nil:
			found = append(found, j)
		case why != "":
			blocked = append(blocked, why)
		}
	}
	if len(found) == 0 {
		return nil, nil, blocked
	}
	for _, other := range found[1:] {
		notes = append(notes, fmt.Sprintf("%s runs the tests on pull_request too (%q); init joined %s only", other.Path, other.Command, found[0].Path))
	}
	return found[0], append(notes, blocked...), nil
}

// detectOnlyRE finds the test line of runners init cannot yet patch: a
// workflow that runs them is named, never run a second time beside.
var detectOnlyRE = map[string]func() *regexp.Regexp{
	"dotnet": rx.Lazy(cmdStart + `dotnet test\b`),
	"maven":  rx.Lazy(cmdStart + `(mvn|\./mvnw)\b.*\b(test|verify|install)\b`),
	"gradle": rx.Lazy(cmdStart + `(gradle|\./gradlew)\b.*\b(test|check|build)\b`),
	"cargo":  rx.Lazy(cmdStart + `cargo (test|nextest)\b`),
}

// joinWorkflow patches one workflow, or says why it cannot ("" when the
// workflow does not run the tests on pull_request at all).
func joinWorkflow(p, src string, runner Runner, re *regexp.Regexp, repo fs.FS, caller string) (*Joined, string) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, ""
	}
	root := doc.Content[0]
	name := workflowName(p, root)
	if !onPullRequest(mapValue(root, "on")) {
		if caller == "" {
			return nil, ""
		}
		// A reusable workflow that a pull_request workflow calls: its run
		// is the caller's, which workflow_run follows by the caller's name.
		name = caller
	}
	jobs := mapValue(root, "jobs")
	if jobs == nil || jobs.Kind != yaml.MappingNode {
		return nil, ""
	}
	lines := strings.Split(src, "\n")
	for i := 0; i+1 < len(jobs.Content); i += 2 {
		jobID, job := jobs.Content[i].Value, jobs.Content[i+1]
		steps := mapValue(job, "steps")
		if job.Kind != yaml.MappingNode || steps == nil || steps.Kind != yaml.SequenceNode {
			continue
		}
		for si, step := range steps.Content {
			run := mapValue(step, "run")
			if step.Kind != yaml.MappingNode || run == nil || run.Kind != yaml.ScalarNode {
				continue
			}
			first, last := stepLines(lines, step, steps.Content, si)
			at := -1
			for l := mapKey(step, "run").Line - 1; l <= last; l++ {
				body := lines[l]
				if l == mapKey(step, "run").Line-1 {
					_, body, _ = strings.Cut(body, "run:")
				}
				if re.MatchString(strings.TrimSpace(body)) && !strings.HasPrefix(strings.TrimSpace(body), "#") {
					at = l
					break
				}
			}
			if at < 0 {
				continue
			}
			matrix := mapValue(mapValue(job, "strategy"), "matrix") != nil
			if up, ok := uploadsResults(steps); ok {
				// Joined before (by init, or by hand): follow it as it is.
				return &Joined{Path: p, Name: name, Job: jobID, Command: testLine(lines[at]),
					Old: src, New: src, Matrix: strings.Contains(up, "${{")}, ""
			}
			if _, ok := testCommandRE[runner.Name]; !ok {
				return nil, fmt.Sprintf("%s runs the tests (%q), and init does not yet add the %s reporter to a workflow", p, strings.TrimSpace(lines[at]), runner.Title)
			}
			wd := workingDirectory(root, job, step)
			repl, upload, why := patchStep(lines, step, at, runner, repo, matrix, wd)
			if why != "" {
				return nil, p + ": " + why
			}
			_ = first
			out := make([]string, 0, len(lines)+len(repl)+len(upload))
			out = append(out, lines[:at]...)
			out = append(out, repl...)
			out = append(out, lines[at+1:last+1]...)
			out = append(out, upload...)
			out = append(out, lines[last+1:]...)
			return &Joined{Path: p, Name: name, Job: jobID, Command: testLine(lines[at]),
				Old: src, New: strings.Join(out, "\n"), Matrix: matrix, at: at, last: last, repl: repl, upload: upload}, ""
		}
	}
	return nil, ""
}

// workingDirectory is where the step's run: runs, relative to the
// workspace (or an expression): the step's own, else its job's or its
// workflow's defaults.run; "" for the workspace.
func workingDirectory(root, job, step *yaml.Node) string {
	for _, n := range []*yaml.Node{
		mapValue(step, "working-directory"),
		mapValue(mapValue(mapValue(job, "defaults"), "run"), "working-directory"),
		mapValue(mapValue(mapValue(root, "defaults"), "run"), "working-directory"),
	} {
		if n != nil && n.Kind == yaml.ScalarNode && n.Value != "" && n.Value != "." {
			return n.Value
		}
	}
	return ""
}

// testLine is the command on a workflow line, without its "- run:".
func testLine(line string) string {
	l := strings.TrimPrefix(strings.TrimSpace(line), "- ")
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "run:"))
}

// workflowName is what GitHub names a workflow's runs: its name:, else its
// path.
func workflowName(p string, root *yaml.Node) string {
	if n := mapValue(root, "name"); n != nil && n.Kind == yaml.ScalarNode && n.Value != "" {
		return n.Value
	}
	return p
}

// reusableCallers maps each local reusable workflow (uses:
// ./.github/workflows/X.yml in a job) to the name of the first workflow on
// pull_request that calls it.
func reusableCallers(fsys fs.FS, paths []string) map[string]string {
	out := map[string]string{}
	for _, p := range paths {
		info, err := fs.Stat(fsys, p)
		if err != nil || info.Size() > maxWorkflowBytes {
			continue
		}
		data, err := fs.ReadFile(fsys, p)
		var doc yaml.Node
		if err != nil || yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		jobs := mapValue(root, "jobs")
		if !onPullRequest(mapValue(root, "on")) || jobs == nil || jobs.Kind != yaml.MappingNode {
			continue
		}
		for i := 1; i < len(jobs.Content); i += 2 {
			if u := mapValue(jobs.Content[i], "uses"); u != nil && strings.HasPrefix(u.Value, "./") {
				callee := strings.TrimPrefix(u.Value, "./")
				if _, seen := out[callee]; !seen {
					out[callee] = workflowName(p, root)
				}
			}
		}
	}
	return out
}

// uploadsResults reports whether a job's steps upload an artifact named
// test-results (or test-results-<leg>), returning the name.
func uploadsResults(steps *yaml.Node) (string, bool) {
	for _, st := range steps.Content {
		u := mapValue(st, "uses")
		if u == nil || !strings.HasPrefix(u.Value, "actions/upload-artifact@") {
			continue
		}
		if n := mapValue(mapValue(st, "with"), "name"); n != nil && strings.HasPrefix(n.Value, "test-results") {
			return n.Value, true
		}
	}
	return "", false
}

// onPullRequest reports whether an on: node includes pull_request.
func onPullRequest(on *yaml.Node) bool {
	if on == nil {
		return false
	}
	switch on.Kind {
	case yaml.ScalarNode:
		return on.Value == "pull_request"
	case yaml.SequenceNode:
		for _, n := range on.Content {
			if n.Value == "pull_request" {
				return true
			}
		}
	case yaml.MappingNode:
		return mapKey(on, "pull_request") != nil
	}
	return false
}

// mapKey and mapValue are the key node and the value node of key in a
// mapping node (nil when m is not a mapping or has no such key).
func mapKey(m *yaml.Node, key string) *yaml.Node {
	if i := mapIndex(m, key); i >= 0 {
		return m.Content[i]
	}
	return nil
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if i := mapIndex(m, key); i >= 0 {
		return m.Content[i+1]
	}
	return nil
}

func mapIndex(m *yaml.Node, key string) int {
	if m == nil || m.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// stepLines is the 0-based line range of a step: from its first key to its
// last non-blank line deeper than its dash.
func stepLines(lines []string, step *yaml.Node, _ []*yaml.Node, _ int) (first, last int) {
	first = step.Line - 1
	dash := step.Column - 3 // "- " before the first key
	last = first
	for l := first + 1; l < len(lines); l++ {
		t := strings.TrimSpace(lines[l])
		if t == "" {
			continue
		}
		if indent(lines[l]) <= dash {
			break
		}
		last = l
	}
	return first, last
}

func indent(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// patchStep rewrites the test line at and adds the upload after the step.
func patchStep(lines []string, step *yaml.Node, at int, runner Runner, repo fs.FS, matrix bool, wd string) (repl, upload []string, why string) {
	line := lines[at]
	runKey := mapKey(step, "run")
	inline := at == runKey.Line-1
	var cmd, pad string
	if inline {
		_, cmd, _ = strings.Cut(line, "run:")
		cmd = strings.TrimSpace(cmd)
		if strings.HasPrefix(cmd, "|") || strings.HasPrefix(cmd, ">") {
			return nil, nil, "its run: is a block that starts on the key's line"
		}
		pad = strings.Repeat(" ", runKey.Column-1+2)
	} else {
		cmd = strings.TrimSpace(line)
		pad = line[:indent(line)]
	}
	if mapValue(step, "run").Style&yaml.FoldedStyle != 0 {
		return nil, nil, "its run: is a folded block (>), whose lines are one command"
	}
	patched, why := withReporter(cmd, runner, repo)
	if why != "" {
		return nil, nil, why
	}
	if inline {
		repl = append(repl, line[:strings.Index(line, "run:")]+"run: |")
	}
	for _, l := range append([]string{"mkdir -p test-results # breaker init: where the reporter writes"}, strings.Split(patched, "\n")...) {
		repl = append(repl, pad+l)
	}
	results := "test-results/"
	if wd != "" {
		results = strings.TrimSuffix(wd, "/") + "/test-results/"
	}
	dash := strings.Repeat(" ", step.Column-3)
	name := "test-results"
	if matrix {
		name = "test-results-${{ strategy.job-index }} # one a leg: the breaker reads test-results-*"
	}
	upload = []string{
		dash + "- if: ${{ !cancelled() }} # breaker init: the results the breaker reads",
		dash + "  uses: " + useUpload,
		dash + "  with:",
		dash + "    name: " + name,
		dash + "    path: " + results,
	}
	return repl, upload, ""
}

// withReporter is the repository's own test command with the runner's
// machine-readable reporter added, or why init cannot add it.
func withReporter(cmd string, runner Runner, repo fs.FS) (string, string) {
	if bare := exprRE().ReplaceAllString(cmd, "expr"); strings.ContainsAny(bare, "|;>`") || strings.Contains(bare, "&&") {
		return "", fmt.Sprintf("its test line %q chains or redirects commands, which init does not rewrite", cmd)
	}
	switch runner.Name {
	case "go":
		i := strings.Index(cmd, "go test")
		if i < 0 {
			return "", fmt.Sprintf("its test line %q runs go test through make, which init does not rewrite (add -json to its go test and send the output to test-results/go-test.json)", cmd)
		}
		return cmd[:i] + "go test -json" + cmd[i+len("go test"):] + " > test-results/go-test.json", ""
	case "jest", "vitest", "mocha", "node":
		// The line stays as it is: the reporter rides in its environment.
		return runner.Wrap(cmd), ""
	case "pytest":
		if i := strings.Index(cmd, "pytest"); i >= 0 {
			return cmd[:i+len("pytest")] + " --junitxml=test-results/junit.xml" + cmd[i+len("pytest"):], ""
		}
		tool := "tox"
		if strings.Contains(cmd, "nox") && !strings.Contains(cmd, "tox") {
			tool = "nox"
		}
		if !posargs(repo, tool) {
			return "", fmt.Sprintf("its test line %q runs %s, whose pytest command takes no {posargs} (add --junitxml=test-results/junit.xml to it)", cmd, tool)
		}
		sep := " --"
		if strings.Contains(cmd, " -- ") || strings.HasSuffix(cmd, " --") {
			sep = ""
		}
		return cmd + sep + " --junitxml=\"$PWD/test-results/junit.xml\"", ""
	}
	return "", "init does not yet join a " + runner.Title + " workflow"
}

// posargs reports whether tox's or nox's configuration passes the command
// line's extra arguments on to pytest.
func posargs(repo fs.FS, tool string) bool {
	files := []string{"tox.ini", "pyproject.toml", "setup.cfg"}
	want := "posargs" // {posargs} in tox.ini, replace = "posargs" in TOML
	if tool == "nox" {
		files, want = []string{"noxfile.py"}, "session.posargs"
	}
	for _, f := range files {
		if data, err := fs.ReadFile(repo, f); err == nil && len(data) < maxWorkflowBytes && strings.Contains(string(data), want) {
			return true
		}
	}
	return false
}

// Diff is the change as a unified diff, for init's output: one hunk, the
// test line replaced and the upload inserted after its step.
func (j Joined) Diff() string {
	a := strings.Split(j.Old, "\n")
	from, to := max(0, j.at-2), min(len(a), j.last+1+2)
	added := len(j.repl) + len(j.upload) - 1
	var s strings.Builder
	fmt.Fprintf(&s, "--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n", j.Path, j.Path, from+1, to-from, from+1, to-from+added)
	for _, l := range a[from:j.at] {
		s.WriteString(" " + l + "\n")
	}
	s.WriteString("-" + a[j.at] + "\n")
	for _, l := range j.repl {
		s.WriteString("+" + l + "\n")
	}
	for _, l := range a[j.at+1 : j.last+1] {
		s.WriteString(" " + l + "\n")
	}
	for _, l := range j.upload {
		s.WriteString("+" + l + "\n")
	}
	for _, l := range a[j.last+1 : to] {
		s.WriteString(" " + l + "\n")
	}
	return s.String()
}
