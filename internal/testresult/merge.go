package testresult

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// File is one result file as the edge read it: its path, what it says, or
// why it could not be read.
type File struct {
	Path   string
	Result *Result // nil when Err is set
	Err    error
}

// Report is a run: every result file and the tests they report, combined.
type Report struct {
	Files []File
	// Tests are every file's tests; a name reported by several files is one
	// test whose worst outcome wins (error, then fail, then pass, then skip).
	Tests []Test
	// Infra is why the tests did not run, "" when they did.
	Infra string
	// InfraKind says what kind of reason Infra is: breaker.InfraNoResults
	// (no file, no test) or breaker.InfraBuild (a runner reported a build
	// failure or a crash); the engine counts both as failed pushes.
	InfraKind string
	// Totals, when set, are the counts of a run whose tests are not all
	// in Tests (an observation taken from a ledger entry, which keeps the
	// failing tests and the counts, not every pass).
	Totals *Counts
}

// Counts counts the report's tests by status (Totals when set).
func (r Report) Counts() Counts {
	if r.Totals != nil {
		return *r.Totals
	}
	return CountTests(r.Tests)
}

// Merge combines result files into a Report. globs are only used to word
// the infra reason when no file matched.
func Merge(files []File, globs []string) Report {
	rep := Report{Files: files}
	var idx testIndex
	var list testList
	read := 0
	for _, f := range files {
		if f.Result == nil {
			continue
		}
		read++
		if len(files) == 1 {
			rep.Tests = f.Result.Tests
			break
		}
		for _, t := range f.Result.Tests {
			idx.add(&list, t, combineWorst)
		}
	}
	if list.n > 0 {
		rep.Tests = list.slice()
	}
	rep.Infra, rep.InfraKind = infraReason(files, rep.Tests, read, globs)
	return rep
}

func infraReason(files []File, tests []Test, read int, globs []string) (string, string) {
	switch {
	case len(files) == 0 && len(globs) == 0:
		return "no result files: no path or glob was given", breaker.InfraNoResults
	case len(files) == 0:
		return "no result files matched " + strings.Join(globs, " "), breaker.InfraNoResults
	case read == 0:
		return "no result file could be read", breaker.InfraNoResults
	}
	var reasons []string
	for _, f := range files {
		if f.Result != nil {
			reasons = append(reasons, f.Result.Infra...)
		}
	}
	kind := breaker.InfraBuild
	if len(reasons) == 0 && len(tests) == 0 {
		reasons = append(reasons, zeroTestsReason(files))
		kind = breaker.InfraNoResults
	}
	switch len(reasons) {
	case 0:
		return "", ""
	case 1:
		return reasons[0], kind
	}
	return fmt.Sprintf("%s (and %d more)", reasons[0], len(reasons)-1), kind
}

func zeroTestsReason(files []File) string {
	var claimed Counts
	for _, f := range files {
		if f.Result != nil && f.Result.Claimed != nil {
			c := f.Result.Claimed
			claimed.Total += c.Total
			claimed.Failed += c.Failed
			claimed.Errored += c.Errored
			claimed.Skipped += c.Skipped
		}
	}
	if claimed.Total > 0 {
		return fmt.Sprintf("zero tests: the suites claim %d tests (%d failed, %d errored, %d skipped) but list none",
			claimed.Total, claimed.Failed, claimed.Errored, claimed.Skipped)
	}
	return "zero tests in the results"
}

// testKey identifies a test within a run.
type testKey struct{ suite, name string }

// testIndex finds tests already seen by name, to combine repeated names.
type testIndex map[testKey]int

// add adds t to list, or combines it with the test of the same name
// already there with combine (every outcome kept in Runs). Tests without
// a name are never combined. Within one file a repeated test is a rerun
// (combineRerun); across files, a matrix of jobs, the worst outcome wins
// (combineWorst).
func (x *testIndex) add(list *testList, t Test, combine func(old *Test, t Test)) {
	if t.Name == "" {
		list.add(t)
		return
	}
	if *x == nil {
		*x = make(testIndex)
	}
	k := testKey{t.Suite, t.Name}
	if i, ok := (*x)[k]; ok {
		combine(list.at(i), t)
		return
	}
	(*x)[k] = list.add(t)
}

// combineWorst folds t into old: the worse status decides what is shown.
func combineWorst(old *Test, t Test) {
	runs := keepRuns(append(runsOf(*old), runsOf(t)...))
	if rank(t.Status) > rank(old.Status) {
		*old = t
	}
	old.Runs = runs
	old.Flaky = old.Flaky && old.Status == breaker.StatusPass
}

// combineRerun folds a later run t of a test into old, within one file:
// the last run that was not skipped decides, and a pass after a failure is
// flaky. It is the rule of every format: go test -count, gotestsum
// --rerun-fails, pytest-rerunfailures, Gradle's test-retry, Jest's
// retryTimes, and TAP producers that repeat a test.
func combineRerun(old *Test, t Test) {
	// A run failed before when the test fails or is flaky (a pass after a
	// failure): the invariant lets flakiness be decided in constant time,
	// so a stream of a million runs of one test reads in linear time.
	failedBefore := old.Status.Failed() || old.Flaky || t.Status.Failed() || t.Flaky
	runs := keepRuns(append(runsOf(*old), runsOf(t)...))
	if t.Status != breaker.StatusSkip || old.Status == breaker.StatusSkip {
		*old = t
	}
	old.Runs = runs
	old.Flaky = old.Status == breaker.StatusPass && failedBefore
}

// maxRuns bounds the runs kept of one test; the newest are kept, and the
// first, which says how the test started.
const maxRuns = 1000

// keepRuns drops the oldest runs but the first once there are twice
// maxRuns, so that appending stays amortised constant time.
func keepRuns(runs []Run) []Run {
	if len(runs) <= 2*maxRuns {
		return runs
	}
	out := make([]Run, 0, 2*maxRuns+1)
	out = append(out, runs[0])
	return append(out, runs[len(runs)-maxRuns+1:]...)
}

func runsOf(t Test) []Run {
	if t.Runs != nil {
		return t.Runs
	}
	return []Run{{Status: t.Status, Message: t.Message, Output: t.Output}}
}

// rank orders statuses from least to most severe.
func rank(s breaker.TestStatus) int {
	switch s {
	case breaker.StatusPass:
		return 1
	case breaker.StatusFail:
		return 2
	case breaker.StatusError:
		return 3
	}
	return 0
}
