package app_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/forge"
)

// verdicts are what one pull request's pushes ended as: the conclusion of
// the newest check run at each push's head, in push order, and the App's
// comments.
type verdicts struct {
	conclusions []string
	comments    int
	open        bool
}

func (w *world) verdicts(heads []string) verdicts {
	newest := map[string]string{}
	for _, run := range w.gh.CheckRuns() {
		newest[run.HeadSHA] = run.Conclusion
	}
	v := verdicts{}
	for _, h := range heads {
		v.conclusions = append(v.conclusions, newest[h])
	}
	comments := w.gh.CommentsByAuthor(7, "greenlight-breaker[bot]")
	v.comments = len(comments)
	for _, c := range comments {
		v.open = v.open || strings.Contains(c.Body, "OPEN")
	}
	return v
}

// Two server processes (`breaker serve` twice, sharing nothing but
// GitHub) fed the deliveries of one pull request interleaved, the last
// two side by side (the fake GitHub holds both check runs' writes until
// both replicas have read the ledger): the same verdicts as one process
// judging them in turn.
func TestServe_TwoReplicasSideBySideGiveOneProcessVerdicts(t *testing.T) {
	t.Parallel()
	one := newWorld(t, config)
	one.noTrailers = true
	one.repo.Git("checkout", "-q", "-b", "agent/S-3")
	var heads []string
	for i := range 3 {
		pr, runID := one.push(i)
		heads = append(heads, pr.HeadSHA)
		one.deliver("workflow_run", "d-"+strconv.Itoa(i), one.workflowRun(runID, pr))
	}
	want := one.verdicts(heads)
	if want.conclusions[2] != "failure" || !want.open {
		t.Fatalf("one process: %+v; want the third push to trip", want)
	}

	two := newWorld(t, config)
	two.noTrailers = true
	two.repo.Git("checkout", "-q", "-b", "agent/S-3")
	a, b := two.process(), two.process()
	heads = nil
	var prs []forge.PullRequest
	var runs []int64
	for i := range 3 {
		pr, runID := two.push(i)
		heads, prs, runs = append(heads, pr.HeadSHA), append(prs, pr), append(runs, runID)
	}
	if code := a.post(t, "workflow_run", "d-0", two.body("workflow_run", two.workflowRun(runs[0], prs[0])), secret); code != http.StatusAccepted {
		t.Fatalf("d-0: %d", code)
	}
	two.waitCheckRuns(1)
	two.gh.Hold(http.MethodPost, "/repos/*/*/check-runs", 2)
	b.post(t, "workflow_run", "d-1", two.body("workflow_run", two.workflowRun(runs[1], prs[1])), secret)
	a.post(t, "workflow_run", "d-2", two.body("workflow_run", two.workflowRun(runs[2], prs[2])), secret)
	a.drain()
	b.drain()
	if !strings.Contains(two.log.String(), "written side by side with this run") {
		t.Errorf("no replica found the other's entry written side by side: the hold did not put them side by side")
	}
	got := two.verdicts(heads)
	if len(got.conclusions) != len(want.conclusions) || got.comments != want.comments || got.open != want.open {
		t.Fatalf("two replicas side by side: %+v; one process: %+v", got, want)
	}
	for i := range got.conclusions {
		if got.conclusions[i] != want.conclusions[i] {
			t.Errorf("push %d: %q side by side, %q in one process", i, got.conclusions[i], want.conclusions[i])
		}
	}
}

// waitCheckRuns waits until the fake GitHub holds n check runs (a
// replica judging in the background), at most a minute.
func (w *world) waitCheckRuns(n int) {
	w.t.Helper()
	for deadline := time.Now().Add(time.Minute); len(w.gh.CheckRuns()) < n; {
		if time.Now().After(deadline) {
			w.t.Fatalf("%d check runs after a minute, want %d", len(w.gh.CheckRuns()), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
