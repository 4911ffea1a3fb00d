package breaker

import (
	"fmt"
	"strings"
)

// sha is a fake, readable 40-hex object name: sha(3) = "0303…03".
func sha(n int) string { return strings.Repeat(fmt.Sprintf("%02x", n%256), 20) }

// chain builds first-parent commits sha(1)..sha(n) on top of sha(0).
// Each spec line is "Key: value" (a trailer), "+path" (added), "~path"
// (modified), "-path" (deleted) or "subject text" (no colon, no sigil).
func chain(specs ...[]string) []Commit {
	var out []Commit
	for i, spec := range specs {
		c := Commit{SHA: sha(i + 1), Parent: sha(i), Subject: fmt.Sprintf("attempt %d", i+1)}
		for _, line := range spec {
			c.apply(line)
		}
		out = append(out, c)
	}
	return out
}

// apply reads one spec line into the commit.
func (c *Commit) apply(line string) {
	switch line[0] {
	case '+':
		c.Files = append(c.Files, FileChange{Path: line[1:], Change: ChangeAdded})
		return
	case '~':
		c.Files = append(c.Files, FileChange{Path: line[1:], Change: ChangeModified})
		return
	case '-':
		c.Files = append(c.Files, FileChange{Path: line[1:], Change: ChangeDeleted})
		return
	}
	k, v, ok := strings.Cut(line, ":")
	if !ok {
		c.Subject = line
		return
	}
	c.Trailers = append(c.Trailers, Trailer{Key: k, Value: strings.TrimSpace(v)})
}

// spec is shorthand for one commit's spec lines.
func spec(lines ...string) []string { return lines }

// attempt is a failing attempt on test in slice S-3 with one file.
func attempt(test string, more ...string) []string {
	return append([]string{"Greenlight-Slice: S-3", "Greenlight-Test: " + test, "~internal/x/x.go"}, more...)
}

// observe is CI's observation of head: test=status pairs.
func observe(head string, pairs ...string) Observation {
	o := Observation{Head: head, Tests: map[string]ObservedTest{}}
	for _, p := range pairs {
		name, status, _ := strings.Cut(p, "=")
		o.Tests[name] = ObservedTest{Name: name, Status: TestStatus(status)}
	}
	return o
}

// input is an Input with the default policy.
func input(commits []Commit, obs Observation) Input {
	return Input{Policy: DefaultPolicy(), Commits: commits, Observation: obs}
}

// verdict is the comparable core of a Decision.
type verdict struct {
	State   State
	Reason  TripReason
	Test    string
	Total   int
	PerTest map[string]int
	Results []string // "test=result/source" of the counted attempts
}

// verdictOf extracts the comparable core of d.
func verdictOf(d Decision) verdict {
	v := verdict{State: d.State, Reason: d.TripReason, Test: d.TrippedTest, Total: d.TotalFailed,
		PerTest: map[string]int{}}
	for _, t := range d.Tests {
		v.PerTest[t.Name] = t.FailedAttempts
	}
	for _, a := range d.Attempts {
		v.Results = append(v.Results, fmt.Sprintf("%s=%s/%s", a.Test, a.Result, a.Source))
	}
	return v
}

// fakeScope is a ScopeSource whose lock allows paths with a prefix.
type fakeScope struct {
	prefix string
	off    bool
}

// Lock returns the fake lock for any slice.
func (f fakeScope) Lock(string) ScopeLock { return f }

// Info reports the fake lock as enabled unless off.
func (f fakeScope) Info() ScopeInfo {
	if f.off {
		return ScopeInfo{Enabled: false, Source: "none", Note: "slice not in graph"}
	}
	return ScopeInfo{Enabled: true, Source: "graph", Note: "test lock"}
}

// InScope allows paths under the prefix.
func (f fakeScope) InScope(p string) bool { return strings.HasPrefix(p, f.prefix) }
