package evaluate

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/testresult"
)

// maxListed bounds how many candidate names an ambiguity note lists.
const maxListed = 5

// buildObservation turns a run's report into the engine's observation of
// head. Tests is keyed by the <prefix>Test trailer names in names, each
// matched with testresult.Match: a name that designates exactly one test is
// observed; a name that designates several is left unobserved and said in
// Notes (reported, not guessed), as is a name no result carries. A flaky
// test is observed as passing, with a note. The report's infra reason
// becomes Infra, and each result file that could not be read becomes a note.
func buildObservation(head string, rep testresult.Report, names []string, testKey string) breaker.Observation {
	obs := breaker.Observation{Head: head, Infra: rep.Infra, InfraKind: rep.InfraKind, Tests: map[string]breaker.ObservedTest{}}
	for _, t := range rep.Tests {
		if t.Status.Failed() {
			if obs.Failing == nil {
				obs.Failing = map[string]breaker.ObservedTest{}
			}
			obs.Failing[t.FullName()] = observed(t)
		}
	}
	for _, f := range rep.Files {
		if f.Err != nil {
			obs.Notes = append(obs.Notes, fmt.Sprintf("result file not read: %s", f.Err))
		}
	}
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		matches := testresult.Match(rep.Tests, name)
		switch len(matches) {
		case 0:
			if rep.Infra == "" {
				obs.Notes = append(obs.Notes, fmt.Sprintf("%s %q: no test of that name in the results; not observed", testKey, name))
			}
		case 1:
			t := matches[0]
			obs.Tests[name] = observed(t)
			if t.Flaky {
				obs.Notes = append(obs.Notes, fmt.Sprintf("%s %q: %s was flaky: it failed, then passed on a rerun (%d runs); observed as pass", testKey, name, t.FullName(), len(t.Runs)))
			}
		default:
			obs.Notes = append(obs.Notes, ambiguityNote(testKey, name, matches))
		}
	}
	return obs
}

func observed(t testresult.Test) breaker.ObservedTest {
	return breaker.ObservedTest{Name: t.FullName(), Status: t.Status, Message: t.Message, Output: t.Output, File: t.File, Line: t.Line}
}

func ambiguityNote(testKey, name string, matches []testresult.Test) string {
	var list []string
	for i, t := range matches {
		if i == maxListed {
			list = append(list, fmt.Sprintf("and %d more", len(matches)-maxListed))
			break
		}
		list = append(list, fmt.Sprintf("%q", t.FullName()))
	}
	return fmt.Sprintf("%s %q is ambiguous: it matches %d tests (%s); not observed: name one of them in full",
		testKey, name, len(matches), strings.Join(list, ", "))
}
