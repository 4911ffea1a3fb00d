package breaker

import (
	"fmt"
	"strings"
)

// view is what the run that judges an attempt knew: the pushes up to
// push at (an index of evaluator.pushes), that push's observation, and
// the attempts up to commit known (-1: every one). An attempt is judged by
// the run of the push Window-1 after the push that brought it, or by this
// run when that is later (DESIGN §1): once its push leaves the window its
// outcome is final, and a carry can keep the counts it left.
type view struct {
	at    int
	obs   Observation
	known int
}

// viewAt is the view of the run at push j; this run's for the newest
// push (or none).
func (e *evaluator) viewAt(j int) view {
	if j < 0 || j >= len(e.pushes)-1 {
		return view{at: len(e.pushes) - 1, obs: e.in.Observation, known: -1}
	}
	p := e.pushes[j]
	obs := Observation{Head: p.Head, Infra: p.Infra, InfraKind: p.InfraKind, Tests: make(map[string]ObservedTest, len(p.Declared))}
	for name, pt := range p.Declared {
		if pt.Status != StatusAbsent {
			obs.Tests[name] = ObservedTest{Name: name, Status: pt.Status, Message: pt.Message}
		}
	}
	return view{at: j, obs: obs, known: e.front[j]}
}

// resolveOutcomes applies the DESIGN §1 priority to every attempt of the
// slice the carry does not hold, each in the view of the run that judges
// it: CI's observation of the head, the Result trailer, a later attempt on
// the same test, the test's status at the judging push.
func (e *evaluator) resolveOutcomes(atts []tracked) {
	next := make([]int, len(atts)) // the commit of the next attempt on the same test, -1 none
	seen := map[string]int{}
	for i := len(atts) - 1; i >= 0; i-- {
		n, ok := seen[atts[i].Test]
		if !ok {
			n = -1
		}
		next[i] = n
		seen[atts[i].Test] = atts[i].idx
	}
	views := map[int]view{}
	for i := range atts {
		a := &atts[i]
		if a.carried {
			continue
		}
		v, ok := views[a.judge]
		if !ok {
			v = e.viewAt(a.judge)
			views[a.judge] = v
		}
		notes := len(e.notes)
		e.resolve(v, a, next[i] >= 0 && (v.known < 0 || next[i] <= v.known))
		if a.folded {
			// Judged and folded before the window: counted, not reported.
			if e.notes = e.notes[:notes]; notes == 0 {
				e.notes = nil
			}
		}
	}
}

// resolve decides the outcome of one attempt in view v.
func (e *evaluator) resolve(v view, a *tracked, later bool) {
	obs := v.obs
	a.Error = a.AgentError
	if SameSHA(a.SHA, obs.Head) {
		if e.fromCI(v, a) {
			return
		}
	}
	if p, ok := e.pushAt(v, a.SHA); ok && e.fromPush(v, a, p) {
		return
	}
	if e.fromTrailer(a) {
		return
	}
	if later {
		a.Result, a.Source = OutcomeFail, SourceLaterAttempt
		return
	}
	t, ok := obs.Tests[a.Test]
	if obs.Infra != "" || !ok {
		a.Result, a.Source = OutcomeUnknown, SourceNone
		return
	}
	a.Result, a.Source = statusOutcome(t.Status), SourceResults
}

// fromCI applies CI's observation of the head; false when CI did not
// observe this test at this commit.
func (e *evaluator) fromCI(v view, a *tracked) bool {
	obs := v.obs
	if obs.Infra != "" {
		untested(a)
		return true
	}
	t, ok := obs.Tests[a.Test]
	if !ok {
		return false
	}
	a.Result, a.Source, a.observed = statusOutcome(t.Status), SourceCI, t.Status
	if a.Result == OutcomeUnknown && e.failedBefore(v, obs.Head, a.Test) {
		a.Result = OutcomeFail // skipped now after failing before: not a pass
	}
	if a.Result == OutcomeFail {
		if out := ciOutput(t); out != "" {
			a.Error, a.ciError = out, true
		}
		if strings.EqualFold(a.Claimed, string(OutcomePass)) {
			a.Misreported = true
		}
	}
	return true
}

// fromPush applies CI's observation of the attempt's commit kept in the
// ledger (or this run's, for a test it no longer carries); false when that
// push did not observe the test. A test that failed at an earlier push and
// is now absent or skipped has not passed: the attempt failed.
func (e *evaluator) fromPush(v view, a *tracked, p Push) bool {
	if p.Infra != "" {
		untested(a)
		return true
	}
	st, ok := p.Declared[a.Test]
	if !ok {
		return false
	}
	switch {
	case st.Status.Failed():
		a.Result, a.Source, a.observed = OutcomeFail, SourceCI, st.Status
		if st.Message != "" {
			a.Error, a.ciError = st.Message, true
		}
	case st.Status == StatusPass:
		a.Result, a.Source, a.observed = OutcomePass, SourceCI, st.Status
	case e.failedBefore(v, p.Head, a.Test):
		a.Result, a.Source, a.observed = OutcomeFail, SourceCI, st.Status
		e.notef("attempt %s on %q: the test failed at an earlier push and is %s at this one; a test that vanishes has not passed",
			ShortSHA(a.SHA), a.Test, st.Status)
	default:
		return false
	}
	if a.Result == OutcomeFail && strings.EqualFold(a.Claimed, string(OutcomePass)) {
		a.Misreported = true
	}
	return true
}

// untested decides an attempt whose commit CI could not test: infra,
// unless the agent itself reports a failure, which needs no confirmation
// (a failure it admits counts even when the tests did not run).
func untested(a *tracked) {
	if strings.EqualFold(a.Claimed, string(OutcomeFail)) {
		a.Result, a.Source = OutcomeFail, SourceTrailer
		return
	}
	a.Result, a.Source = OutcomeInfra, SourceCI
}

// fromTrailer applies the agent's <prefix>Result trailer; false when it
// is absent or not one of pass, fail, infra.
func (e *evaluator) fromTrailer(a *tracked) bool {
	if a.Claimed == "" {
		return false
	}
	switch o := Outcome(strings.ToLower(a.Claimed)); o {
	case OutcomePass, OutcomeFail, OutcomeInfra:
		a.Result, a.Source = o, SourceTrailer
		return true
	}
	e.notef("attempt %s on %q has %s %q, which is not pass, fail or infra: ignored",
		ShortSHA(a.SHA), a.Test, e.p.Key(TrailerResult), a.Claimed)
	return false
}

// statusOutcome maps a result status to an outcome: a skip or an
// unrecognised status proves nothing.
func statusOutcome(s TestStatus) Outcome {
	switch {
	case s.Failed():
		return OutcomeFail
	case s == StatusPass:
		return OutcomePass
	}
	return OutcomeUnknown
}

// ciOutput is CI's exact failure text for a test: its message, then its
// output, each once.
func ciOutput(t ObservedTest) string {
	msg, out := strings.TrimRight(t.Message, "\n"), strings.TrimRight(t.Output, "\n")
	switch {
	case msg == "":
		return out
	case out == "" || msg == out:
		return msg
	}
	return msg + "\n" + out
}

// notef adds a note to the decision.
func (e *evaluator) notef(format string, args ...any) {
	e.notes = append(e.notes, fmt.Sprintf(format, args...))
}
