package breaker

import (
	"fmt"
	"sort"
	"strings"
)

// maxSubjectRunes caps the commit subjects one push's log row quotes: the
// agent's own words, untrusted, escaped by the renderer and cut here.
const maxSubjectRunes = 300

// evidenceDiagnostic is the seed 000 §4.3 diagnostic of a slice with no
// declared attempt (an agent that writes no trailers), built field by field
// from the observed pushes: the test that failed at most pushes, CI's exact
// output at the newest push, one log row per push with the pushed commits'
// subjects (what was tried, in the agent's words), their files, the result
// and whether the error changed, the cumulative files, and a hypothesis
// derived from the evidence and labelled so. ok is false when no observed
// push failed.
func (e *evaluator) evidenceDiagnostic(d Decision) (Diagnostic, bool) {
	test, others, ok := e.evidenceTest(d)
	if !ok {
		return Diagnostic{}, false
	}
	commits := e.pushCommits()
	var log []LogEntry
	var files []FileTouch
	pos := map[string]int{}
	prevFP, sameRun := "", 0
	errorNames := map[string]string{}
	for i, s := range d.Pushes {
		if s.Prior {
			continue
		}
		n := len(log) + 1
		var subjects []string
		var changed []string
		for _, c := range commits[i] {
			subjects = append(subjects, c.Subject)
			for _, f := range c.Files {
				changed = appendUnique(changed, f.Path)
				j, seen := pos[f.Path]
				if !seen {
					j = len(files)
					pos[f.Path] = j
					files = append(files, FileTouch{Path: f.Path, Change: f.Change})
				}
				if m := len(files[j].Attempts); m == 0 || files[j].Attempts[m-1] != n {
					files[j].Attempts = append(files[j].Attempts, n)
				}
			}
		}
		strategy := capText(strings.Join(subjects, "; "), maxSubjectRunes)
		if len(commits[i]) == 0 {
			strategy = "(its commits are no longer on the branch: force-pushed away)"
		}
		fp := e.window[i].Tests[test].Fingerprint
		if fp != "" {
			// The fingerprint is a hash no one reads: the errors are named
			// A, B, C... in the order CI first showed them.
			if _, ok := errorNames[fp]; !ok {
				errorNames[fp] = errorName(len(errorNames))
			}
			fp = errorNames[fp]
		}
		result := pushResult(s, test)
		switch {
		case s.Infra != "" || !containsName(s.Failing, test):
			prevFP, sameRun = "", 0
		case fp != "" && fp == prevFP:
			sameRun++
			result += ", the same error as the push before (" + fp + ")"
		case fp != "" && prevFP != "":
			sameRun = 1
			result += ", a different error from the push before (" + fp + ")"
			prevFP = fp
		default:
			sameRun = 1
			if fp != "" {
				result += " (error " + fp + ")"
			}
			prevFP = fp
		}
		log = append(log, LogEntry{Attempt: n, SHA: s.Head, Strategy: strategy, Files: changed, Result: result})
	}
	return Diagnostic{
		Test:             test,
		TestExpectation:  e.evidenceExpectation(test, others),
		ActualError:      e.evidenceError(d, test),
		AttemptLog:       log,
		CumulativeFiles:  files,
		BestHypothesis:   e.evidenceHypothesis(d, test, sameRun),
		SpecificQuestion: e.evidenceQuestion(d, test),
		RecoveryOptions:  e.recovery(d, test),
	}, true
}

// errorName is the name of the n-th distinct error (from 0): A to Z, then
// AA, AB...
func errorName(n int) string {
	if n < 26 {
		return string(rune('A' + n))
	}
	return errorName(n/26-1) + string(rune('A'+n%26))
}

// evidenceTest picks the test the diagnostic is about: the one that failed
// at most observed pushes (after the reset), ties broken by the longest
// streak of failed pushes up to the newest, then by name. others are the
// other tests failing at the newest push.
func (e *evaluator) evidenceTest(d Decision) (test string, others []string, ok bool) {
	count, streak := map[string]int{}, map[string]int{}
	for _, s := range d.Pushes {
		if s.Prior || s.Infra != "" {
			continue
		}
		failing := map[string]bool{}
		for _, name := range s.Failing {
			failing[name] = true
			count[name]++
		}
		for name := range count {
			if failing[name] {
				streak[name]++
			} else {
				streak[name] = 0
			}
		}
	}
	if len(count) == 0 {
		return "", nil, false
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	// A Go table test fails with its subtests: the subtests' own messages
	// say what failed, the parent's is go test's framing. Prefer the leaf.
	var leaves []string
	for _, n := range names {
		parent := false
		for _, m := range names {
			if strings.HasPrefix(m, n+"/") {
				parent = true
				break
			}
		}
		if !parent {
			leaves = append(leaves, n)
		}
	}
	if len(leaves) > 0 {
		names = leaves
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if count[a] != count[b] {
			return count[a] > count[b]
		}
		if streak[a] != streak[b] {
			return streak[a] > streak[b]
		}
		return a < b
	})
	test = names[0]
	for i := len(d.Pushes) - 1; i >= 0; i-- {
		if s := d.Pushes[i]; !s.Prior && s.Infra == "" {
			for _, n := range s.Failing {
				if n != test {
					others = append(others, n)
				}
			}
			break
		}
	}
	return test, others, true
}

// pushCommits are, for each push of the window, the commits it brought
// onto the current history (none for a head force-pushed away).
func (e *evaluator) pushCommits() [][]Commit {
	split := len(e.pushes) - len(e.window)
	lo, hi, _, _ := pushRanges(e.pushes, e.commitIndex(), e.edge())
	out := make([][]Commit, len(e.window))
	for i := range e.window {
		if l, h := lo[split+i], hi[split+i]; l <= h {
			out[i] = e.in.Commits[l : h+1]
		}
	}
	return out
}

// pushResult words what CI saw at a push, for the log row.
func pushResult(s PushSummary, test string) string {
	switch {
	case s.Infra != "":
		return "the tests did not run: " + s.Infra
	case containsName(s.Vanished, test):
		return "failed: " + test + " vanished from the results"
	case s.Failed && containsName(s.Failing, test):
		return "failed"
	case s.Failed:
		return "failed (" + test + " passed; " + strings.Join(s.Failing, ", ") + " failed)"
	case s.Progress:
		return "progress"
	case len(s.Failing) == 0:
		return "passed"
	}
	return "no new failure"
}

func containsName(list []string, name string) bool {
	for _, x := range list {
		if x == name {
			return true
		}
	}
	return false
}

// evidenceExpectation says what CI's message states the test expects, and
// names the other failing tests.
func (e *evaluator) evidenceExpectation(test string, others []string) string {
	s := fmt.Sprintf("The test %s passes.", test)
	if t, ok := e.in.Observation.Failing[test]; ok {
		if line := expectedLine(t.Message, t.Output); line != "" {
			s += fmt.Sprintf(" CI's failure message states: “%s”.", line)
		}
	}
	if len(others) > 0 {
		s += fmt.Sprintf(" Also failing at the newest push: %s.", strings.Join(others, ", "))
	}
	return s + " (From the test's name and CI's message; the breaker does not read test source.)"
}

// evidenceError is CI's exact output for the test at the newest push that
// has it: this run's, when this run saw the test fail.
func (e *evaluator) evidenceError(d Decision, test string) string {
	if out := e.ciError(test); out != "" {
		return out
	}
	for i := len(e.window) - 1; i >= 0; i-- {
		if pt, ok := e.window[i].Tests[test]; ok && pt.Status.Failed() {
			return fmt.Sprintf("CI saw %s %s at %s (error fingerprint %s); this run has no output for it: the output is in the log of the run that observed %s.",
				test, pt.Status, ShortSHA(e.window[i].Head), orNone(pt.Fingerprint), ShortSHA(e.window[i].Head))
		}
	}
	return fmt.Sprintf("No CI output for %s.", test)
}

// ciError is CI's output for the test: this run's, else the message the
// newest observation that saw it fail kept; "" when none has one.
func (e *evaluator) ciError(test string) string {
	if t, ok := e.in.Observation.Failing[test]; ok {
		if out := ciOutput(t); out != "" {
			return out
		}
	}
	for i := len(e.window) - 1; i >= 0; i-- {
		if pt, ok := e.window[i].Tests[test]; ok && pt.Status.Failed() {
			if pt.Message != "" {
				return pt.Message
			}
			return pt.Kept
		}
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// evidenceHypothesis derives a hypothesis from what CI saw, and says so:
// the breaker never invents one.
func (e *evaluator) evidenceHypothesis(d Decision, test string, sameRun int) string {
	const from = "From CI's evidence, not the agent's words: "
	var failed, vanished int
	otherEvery := map[string]int{}
	observed := 0
	for _, s := range d.Pushes {
		if s.Prior || s.Infra != "" {
			continue
		}
		observed++
		if containsName(s.Failing, test) {
			failed++
		}
		if containsName(s.Vanished, test) {
			vanished++
		}
		for _, n := range s.Failing {
			if n != test {
				otherEvery[n]++
			}
		}
	}
	switch {
	case vanished > 0:
		return from + fmt.Sprintf("%s vanished from the results; a test that disappears has not passed, and deleting or skipping it is no fix.", test)
	case sameRun >= 2:
		return from + fmt.Sprintf("the same error at %d pushes in a row: the changes did not reach the code path that fails.", sameRun)
	}
	others := make([]string, 0, len(otherEvery))
	for n := range otherEvery {
		others = append(others, n)
	}
	sort.Strings(others) // the same test named at every run, not the map's pick
	for _, n := range others {
		if c := otherEvery[n]; c == observed && observed > 1 {
			return from + fmt.Sprintf("%s fails at every push as well: the changes break what they do not target.", n)
		}
	}
	if failed < 2 {
		// One failed push shows an error, not how it moves: say only that.
		return from + fmt.Sprintf("%s failed at %d of %d observed %s; one failure shows no pattern yet.", test, failed, observed, pushWord(observed))
	}
	return from + fmt.Sprintf("%s failed at %d of %d observed pushes, with a changing error: the changes move the failure without fixing it.", test, failed, observed)
}

func pushWord(n int) string {
	if n == 1 {
		return "push"
	}
	return "pushes"
}

// evidenceQuestion asks what a maintainer can answer, in the words the
// pushes allow: "every recent push" only when it failed at each of two or
// more, and the reset named only when there is an OPEN circuit to reset.
func (e *evaluator) evidenceQuestion(d Decision, test string) string {
	failed, observed := d.FailedAt(test, false)
	how := fmt.Sprintf("%s failed at %d of %d observed %s", test, failed, observed, pushWord(observed))
	if failed == observed && observed >= 2 {
		how = test + " fails at every recent push"
	}
	if d.State != StateOpen {
		return how + ": is its expectation right, and what should the agent try next?"
	}
	return how + ": is its expectation right, and what should the agent try instead? " +
		fmt.Sprintf("Answer /breaker reset %s with your guidance.", d.Slice)
}
