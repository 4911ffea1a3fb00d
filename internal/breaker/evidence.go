package breaker

import (
	"fmt"
	"strings"
)

// trend is how the recorded error moved across the failed attempts.
type trend struct {
	failed    int    // failed attempts
	errors    int    // failed attempts with an error text
	changedAt int    // attempt number where the error first changed; 0 = never
	from, to  string // the error before and after that change
	last      string // the newest error
}

// errorTrend compares the first lines of the failed attempts' errors.
func errorTrend(atts []tracked) trend {
	var t trend
	for _, a := range atts {
		if a.Result != OutcomeFail {
			continue
		}
		t.failed++
		line := firstLine(a.Error)
		if line == "" {
			continue
		}
		if t.errors > 0 && t.changedAt == 0 && line != t.last {
			t.changedAt, t.from, t.to = a.Number, t.last, line
		}
		t.errors++
		t.last = line
	}
	return t
}

// hypothesis is the agent's newest hypothesis, else what the evidence
// shows, with no cause invented.
func (e *evaluator) hypothesis(atts []tracked) string {
	key := e.p.Key(TrailerHypothesis)
	for i := len(atts) - 1; i >= 0; i-- {
		if h := atts[i].Hypothesis; h != "" {
			return fmt.Sprintf("The agent's hypothesis (%s at %s): %s", key, ShortSHA(atts[i].SHA), h)
		}
	}
	return fmt.Sprintf("The agent gave no %s, and the breaker does not guess a cause. "+
		"The evidence shows: %s.", key, strings.Join(evidence(atts), "; "))
}

// evidence lists the facts the attempts establish.
func evidence(atts []tracked) []string {
	t := errorTrend(atts)
	facts := []string{fmt.Sprintf("%d of %d attempts failed", t.failed, len(atts))}
	if n := undecided(atts); n > 0 {
		facts = append(facts, fmt.Sprintf("%d of them had no known outcome (infra or unknown)", n))
	}
	switch {
	case t.failed == 0:
	case t.errors == 0:
		facts = append(facts, "no error text was recorded for the failed attempts")
	case t.changedAt != 0:
		facts = append(facts, fmt.Sprintf("the error changed at attempt %d", t.changedAt))
	case t.errors > 1:
		facts = append(facts, fmt.Sprintf("the error did not change across the %d attempts that recorded one", t.errors))
	}
	if f := filePattern(atts); f != "" {
		facts = append(facts, f)
	}
	for _, a := range atts {
		if a.Misreported {
			facts = append(facts, fmt.Sprintf("attempt %d claimed a pass that CI contradicted", a.Number))
		}
		for _, s := range a.findings {
			if s.Verdict == VerdictViolation {
				facts = append(facts, fmt.Sprintf("attempt %d changed %s outside the slice's scope without justification", a.Number, s.File))
			}
		}
	}
	return facts
}

// filePattern says whether the attempts kept touching the same files or
// each touched different ones; "" when there is no pattern to state.
func filePattern(atts []tracked) string {
	if len(atts) < 2 {
		return ""
	}
	seen := map[string]int{}
	same := true
	for _, a := range atts {
		if len(a.Files) == 0 {
			return fmt.Sprintf("attempt %d changed no files", a.Number)
		}
		if pathSet(a.Files) != pathSet(atts[0].Files) {
			same = false
		}
		for _, f := range a.Files {
			seen[f.Path]++
		}
	}
	switch {
	case same:
		return "every attempt touched the same files: " + pathSet(atts[0].Files)
	case len(seen) == countFiles(atts):
		return "each attempt touched different files"
	}
	return fmt.Sprintf("the attempts touched %d distinct files, some repeatedly", len(seen))
}

// pathSet renders the paths of a change list in order, comma-separated.
func pathSet(files []FileChange) string {
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	return strings.Join(paths, ", ")
}

// countFiles is the number of (attempt, path) changes.
func countFiles(atts []tracked) int {
	n := 0
	for _, a := range atts {
		n += len(a.Files)
	}
	return n
}

// undecided counts the attempts whose outcome is infra or unknown.
func undecided(atts []tracked) int {
	n := 0
	for _, a := range atts {
		if a.Result == OutcomeInfra || a.Result == OutcomeUnknown {
			n++
		}
	}
	return n
}

// question is the agent's newest question, else an answerable question
// grounded in the evidence.
func (e *evaluator) question(d Decision, test string, atts []tracked) string {
	for i := len(atts) - 1; i >= 0; i-- {
		if q := atts[i].Question; q != "" {
			return fmt.Sprintf("The agent asks (%s at %s): %s", e.p.Key(TrailerQuestion), ShortSHA(atts[i].SHA), q)
		}
	}
	for _, a := range atts {
		if a.Misreported {
			return fmt.Sprintf("Attempt %d claimed %q passed but CI observed it failing: "+
				"does the agent run the same test command as CI?", a.Number, test)
		}
		for _, s := range a.findings {
			if s.Verdict == VerdictViolation {
				return fmt.Sprintf("Attempt %d changed %s, outside slice %s's scope, without a %s line: "+
					"should that file be in the slice's scope, or must the fix stay inside it?",
					a.Number, s.File, d.Slice, e.p.Key(TrailerJustify))
			}
		}
	}
	t := errorTrend(atts)
	switch {
	case t.changedAt != 0:
		return fmt.Sprintf("The error changed at attempt %d from %q to %q: which is closer to what %q expects?",
			t.changedAt, capText(t.from, 200), capText(t.to, 200), test)
	case t.errors > 1:
		return fmt.Sprintf("The error %q did not change across %d attempts: does %q depend on something "+
			"outside the files these attempts changed, and if so which file or contract?", capText(t.last, 200), t.errors, test)
	case t.errors == 1:
		return fmt.Sprintf("Is the failure %q what %q should report, and what should change to make it pass?",
			capText(t.last, 200), test)
	case e.in.Observation.Infra != "":
		return fmt.Sprintf("The tests did not run in this run (%s): what does the build or runner need "+
			"so that %q runs?", e.in.Observation.Infra, test)
	}
	return fmt.Sprintf("Neither CI nor the agent recorded a failure output for %q: can you run it and "+
		"paste the failure, or say what it expects?", test)
}
