package action_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The run after a force push over many earlier heads costs what any run
// costs (issue 50): sixty one-commit pushes, then a rebase onto a newer
// base and a force push; the run after it and the one after that each
// make at most five requests.
func TestForcePush_TheRunAfterARebaseCostsWhatAnyRunCosts(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.inputs["ledger-key"] = "a-ledger-key-of-the-force-push-rig"
	r.git("checkout", "-q", "-b", "agent/refactor")
	r.results(map[string]string{"TestCart": "pass"})
	const pushes = 60
	for i := range pushes {
		r.commit(fmt.Sprintf("Refactor the cart, step %d", i+1))
		event := "synchronize"
		if i == 0 {
			event = "opened"
		}
		r.giveCommits(r.git("rev-parse", "HEAD")) // GitHub has every pushed commit
		if o := r.pullRequest(event, r.open(7, "agent/refactor")); o.Err != nil {
			t.Fatalf("push %d: %v", i+1, o.Err)
		}
	}
	away := r.git("rev-parse", "agent/refactor")
	r.git("checkout", "-q", "main")
	r.commit("Move on the base")
	r.git("checkout", "-q", "agent/refactor")
	r.git("rebase", "-q", "main")
	r.srv.AddForcePush(7, away) // GitHub's timeline names the head the force push replaced
	for i, what := range []string{"the run after the force push", "the run after it"} {
		if i == 1 {
			r.commit("One more step")
		}
		r.giveCommits(r.git("rev-parse", "HEAD"))
		before := r.srv.CallCount()
		o := r.pullRequest("synchronize", r.open(7, "agent/refactor"))
		if o.Err != nil {
			t.Fatalf("%s: %v", what, o.Err)
		}
		n := r.srv.CallCount() - before
		t.Logf("%s: %d requests", what, n)
		if n > 5 {
			t.Errorf("%s made %d requests, want at most 5\n%s", what, n, o.stdout)
		}
	}
}

// A rebase and force push in the middle of a line decides as reading every
// page does, at every push: the run after it starts from the carry of the
// entry at its before (read with before's history, one more query), the
// runs after that from their own carries (the heads the force push took
// away relayed by the entry that needs them), one query each.
func TestForcePush_ARebaseDecidesAsTheWholeLine(t *testing.T) {
	t.Parallel()
	line := foldLine()
	const rebase = 18
	commits := func(r *rig, i int) {
		if i != rebase {
			r.commit(fmt.Sprintf("Fix the cart, take %d", i+1))
			return
		}
		away := r.git("rev-parse", "agent/fix-login")
		r.git("checkout", "-q", "main")
		r.commit("Move on the base")
		r.git("checkout", "-q", "agent/fix-login")
		r.git("rebase", "-q", "main")
		r.srv.AddForcePush(7, away) // GitHub's timeline names the head the force push replaced
	}
	oneQuery := func(i int) bool { return i != rebase }
	runs, _ := sameAsEveryPage(t, line, commits, nil, judged, oneQuery)
	for name, outs := range runs {
		for i := rebase; i < len(line); i++ {
			if o := outs[i]; !strings.Contains(o.stdout, "the newest entry's carry folds") {
				t.Errorf("%s: push %d (the rebase is push %d) did not start from a carry:\n%s", name, i+1, rebase+1, o.stdout)
			}
		}
	}
}

// The CPU of the run after a rebase against an ordinary push's, in the
// same process (issue 50: within 1.5×): sixty one-commit pushes, a rebase
// and force push, then three ordinary pushes, whose median is the
// reference. Reported, never asserted:
//
//	go test ./internal/action -run '^$' -bench ForcePush -benchtime 3x
func BenchmarkForcePush_TheRunAfterARebase(b *testing.B) {
	var after, ordinary []float64
	for range b.N {
		r := newRig(b)
		r.inputs["ledger-key"] = "a-ledger-key-of-the-force-push-rig"
		r.git("checkout", "-q", "-b", "agent/refactor")
		r.results(map[string]string{"TestCart": "pass", "TestLogin": "fail"})
		run := func(event string) float64 {
			r.giveCommits(r.git("rev-parse", "HEAD"))
			pr := r.open(7, "agent/refactor")
			start := cpuTime()
			if o := r.pullRequest(event, pr); o.Err != nil {
				b.Fatal(o.Err)
			}
			return float64(cpuTime()-start) / float64(time.Millisecond)
		}
		for i := range 60 {
			r.commit(fmt.Sprintf("Refactor the cart, step %d", i+1))
			run(map[bool]string{true: "opened", false: "synchronize"}[i == 0])
		}
		away := r.git("rev-parse", "agent/refactor")
		r.git("checkout", "-q", "main")
		r.commit("Move on the base")
		r.git("checkout", "-q", "agent/refactor")
		r.git("rebase", "-q", "main")
		r.srv.AddForcePush(7, away)
		after = append(after, run("synchronize"))
		var own []float64
		for i := range 3 {
			r.commit(fmt.Sprintf("One more step, %d", i+1))
			own = append(own, run("synchronize"))
		}
		slices.Sort(own)
		ordinary = append(ordinary, own[1])
	}
	slices.Sort(after)
	slices.Sort(ordinary)
	a, o := after[len(after)/2], ordinary[len(ordinary)/2]
	b.ReportMetric(a, "after-rebase-cpu-ms")
	b.ReportMetric(o, "ordinary-cpu-ms")
	if o > 0 {
		b.ReportMetric(a/o, "ratio")
	}
}
