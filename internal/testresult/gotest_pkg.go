package testresult

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// textLine handles a line that is not a JSON event.
func (p *goParser) textLine(line []byte) {
	p.text.write(line)
	s := strings.TrimRight(string(line), "\r\n")
	rest, ok := strings.CutPrefix(s, "FAIL\t")
	if !ok {
		return
	}
	for _, kind := range []string{"build failed", "setup failed"} {
		if pkg, ok := strings.CutSuffix(rest, " ["+kind+"]"); ok {
			p.textBad = append(p.textBad, [2]string{kind, pkg})
		}
	}
}

// packageVerdicts turns what the stream said about packages into infra
// reasons (build failures, binaries that failed before any test) and
// warnings (binaries that failed outside any test).
func (p *goParser) packageVerdicts() []string {
	infra, seen := p.buildFailures()
	failedTests := map[string]bool{}
	for i := range p.tests {
		if p.tests[i].Status.Failed() {
			failedTests[p.tests[i].Suite] = true
		}
	}
	for _, name := range p.pkgOrder() {
		g := p.pkgs[name]
		if !g.failed || seen[name] {
			continue
		}
		detail := firstLine(g.out.String(), "FAIL", "exit status", "PASS", "ok  ")
		switch {
		case g.tests == 0:
			infra = append(infra, joinReason("the test binary of "+name+" failed before any test ran", detail))
		case !failedTests[name]:
			p.warnings = append(p.warnings, joinReason(name+" failed outside any test", detail))
		}
	}
	return infra
}

// buildFailures lists the build and setup failures, once each, from build
// events, FailedBuild fields and "FAIL pkg [build failed]" lines; seen holds
// the packages and build ids they name.
func (p *goParser) buildFailures() (infra []string, seen map[string]bool) {
	text := p.text.String()
	seen = map[string]bool{}
	add := func(kind, id, detail string) {
		if !seen[id] {
			seen[id] = true
			infra = append(infra, joinReason(kind+": "+id, detail))
		}
	}
	for _, id := range p.buildBad {
		add("build failed", id, firstLine(p.buildText(id), "# "))
	}
	for _, name := range p.pkgOrder() {
		if g := p.pkgs[name]; g.failedBuild != "" {
			seen[name] = true
			add("build failed", g.failedBuild, firstLine(p.buildText(g.failedBuild)+text, "# ", "FAIL"))
		}
	}
	for _, bad := range p.textBad {
		add(bad[0], bad[1], firstLine(text, "# ", "FAIL"))
	}
	return infra, seen
}

func (p *goParser) buildText(id string) string {
	if b := p.builds[id]; b != nil {
		return b.String()
	}
	return ""
}

func (p *goParser) pkgOrder() []string {
	names := make([]string, 0, len(p.pkgs))
	for n := range p.pkgs {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return p.pkgs[names[i]].seq < p.pkgs[names[j]].seq })
	return names
}

// benchTests adds a passing test for each benchmark whose result line was
// printed without any event of its own (benchmarks that did not log).
func (p *goParser) benchTests() {
	for _, name := range p.pkgOrder() {
		for _, line := range p.pkgs[name].benches {
			bench := strings.Fields(line)[0]
			if i := strings.LastIndexByte(bench, '-'); i > 0 {
				if _, err := strconv.Atoi(bench[i+1:]); err == nil {
					bench = bench[:i]
				}
			}
			if r := p.test(goKey{name, bench}); r.idx < 0 {
				p.pkg(name).tests++
				p.record(r, Test{Suite: name, Name: bench, Status: breaker.StatusPass})
			}
		}
	}
}

func (p *goParser) streamWarnings() []string {
	var w []string
	actions := make([]string, 0, len(p.unknown))
	for a := range p.unknown {
		actions = append(actions, a)
	}
	sort.Strings(actions)
	for _, a := range actions {
		w = append(w, fmt.Sprintf("unknown action %q ignored (%d events)", capText(a), p.unknown[a]))
	}
	if p.badJSON > 0 {
		w = append(w, fmt.Sprintf("%d lines start with '{' but are not JSON events; read as text (first: %s)", p.badJSON, p.firstBad))
	}
	if p.ambiguous > 0 {
		w = append(w, fmt.Sprintf("%d events name a key twice and were read as failures (first: %s)", p.ambiguous, p.firstAmbiguous))
	}
	if p.overlong {
		w = append(w, fmt.Sprintf("a line over %d MiB was cut", maxLineBytes>>20))
	}
	return w
}

// isBenchLine reports whether out is a benchmark result line:
// "BenchmarkX-8   1000   123 ns/op ...".
func isBenchLine(out string) bool {
	if !strings.HasPrefix(out, "Benchmark") {
		return false
	}
	f := strings.Fields(out)
	if len(f) < 4 || f[3] != "ns/op" {
		return false
	}
	_, err := strconv.ParseUint(f[1], 10, 64)
	return err == nil
}

// goMessage finds the first line of a test's output that is not go test's
// own framing (=== RUN, --- FAIL, ...) and splits a "file.go:12: " prefix off.
func goMessage(out string) (msg, file string, line int) {
	for l := range strings.Lines(out) {
		s := strings.TrimSpace(l)
		if s == "" || isFraming(s) {
			continue
		}
		loc, rest, ok := strings.Cut(s, ": ")
		if f, n, ok2 := strings.Cut(loc, ":"); ok && ok2 && strings.HasSuffix(f, ".go") && !strings.ContainsAny(f, " \t") {
			if ln, err := strconv.Atoi(n); err == nil {
				return rest, f, ln
			}
		}
		return s, "", 0
	}
	return "", "", 0
}

var framing = []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "=== ATTR", "--- FAIL", "--- PASS", "--- SKIP", "--- BENCH"}

func isFraming(s string) bool {
	for _, f := range framing {
		if strings.HasPrefix(s, f) {
			return true
		}
	}
	return false
}

// firstLine returns the first non-blank line of s that starts with none of
// the skip prefixes, trimmed.
func firstLine(s string, skip ...string) string {
next:
	for l := range strings.Lines(s) {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		for _, p := range skip {
			if strings.HasPrefix(t, p) {
				continue next
			}
		}
		return t
	}
	return ""
}

func joinReason(what, detail string) string {
	if detail == "" {
		return what
	}
	return what + ": " + detail
}
