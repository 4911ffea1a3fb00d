package action_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/replay"
)

// `breaker stats` over a month the Action observed: fifty pull requests
// by three agents, twelve of which trip, six reset by a maintainer. Every
// figure is the one worked out by hand below from how the month is seeded.

const (
	agentA = "copilot-swe-agent[bot]"
	agentB = "claude[bot]"
	agentC = "devin-ai-integration[bot]"
)

// The seeded month. Pull request i (0..49) opens on day i*3/5 of the
// month (2026-03-02, a Monday, is day 0). The twelve that trip fail one
// test at three pushes; six of them are reset by a maintainer after a
// wait, then pass. The others pass at once, or fail one push and pass.
var (
	tripAt = []int{2, 5, 9, 12, 17, 21, 26, 30, 34, 38, 43, 47}
	// per trip, in order: its agent, the test it fails (and the error),
	// and the minutes before a maintainer's reset (0: never reset).
	tripAgent = []string{agentA, agentA, agentA, agentA, agentA, agentB, agentB, agentB, agentB, agentC, agentC, agentC}
	tripTest  = []string{"TestLogin", "TestLogin", "TestLogin", "TestLogin", "TestLogin", "TestLogin",
		"TestSessionRefresh", "TestSessionRefresh", "TestCart", "TestCart", "TestCart", "TestCart"}
	tripWait = []int{30, 60, 90, 0, 0, 120, 240, 0, 0, 600, 0, 0}
	errorOf  = map[string]string{"TestLogin": "session expired before the redirect", "TestSessionRefresh": "session expired before the redirect",
		"TestCart": "total 9.99, want 10.00"}
)

// junitWith writes the results: every test passes but the failing one,
// with its error.
func (r *rig) junitWith(failing string) {
	r.t.Helper()
	var b strings.Builder
	b.WriteString("<testsuite name=\"users\">\n")
	for _, test := range []string{"TestCart", "TestLogin", "TestSessionRefresh", "TestSignup"} {
		fmt.Fprintf(&b, "  <testcase classname=\"users\" name=%q>", test)
		if test == failing {
			fmt.Fprintf(&b, "<failure message=%q>service_test.go:42: %s</failure>", errorOf[test], errorOf[test])
		}
		b.WriteString("</testcase>\n")
	}
	b.WriteString("</testsuite>\n")
	if err := os.WriteFile(filepath.Join(r.dir, "junit.xml"), []byte(b.String()), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func seedStatsMonth(t *testing.T) *rig {
	r := newRig(t)
	at := func() time.Time { return rigEpoch.Add(time.Duration(r.runs) * time.Minute) }
	// The others, in order: fifteen by A, fourteen by B, nine by C, each
	// agent's first passing at once, its second failing once, and so on.
	var others []string
	for agent, n := range map[string]int{agentA: 15, agentB: 14, agentC: 9} {
		for range n {
			others = append(others, agent)
		}
	}
	sort.SliceStable(others, func(i, j int) bool { return rank(others[i]) < rank(others[j]) })
	runID, trip, other, nth := int64(70_000), 0, 0, map[string]int{}
	for i := range 50 {
		if start := i * 3 / 5 * 24 * 60; r.runs < start {
			r.runs = start
		}
		number, branch := 200+i, fmt.Sprintf("agent/month-%d", i)
		var agent, failing string
		var pushes []string // the failing test at each push; "" = green
		wait := 0
		if trip < len(tripAt) && tripAt[trip] == i {
			agent, failing, wait = tripAgent[trip], tripTest[trip], tripWait[trip]
			pushes = []string{failing, failing, failing}
			trip++
		} else {
			agent = others[other]
			other++
			if nth[agent]++; nth[agent]%2 == 1 {
				pushes = []string{""}
			} else {
				pushes = []string{"TestSignup", ""}
			}
		}
		created := at()
		r.git("checkout", "-q", "-b", branch, "main")
		var pr forge.PullRequest
		push := func(k int, fails string) {
			r.commit(fmt.Sprintf("Attempt %d", k+1))
			r.junitWith(fails)
			pr = r.open(number, branch)
			pr.Author = agent
			r.srv.AddPullRequest(pr)
			action := "synchronize"
			if k == 0 {
				action = "opened"
			}
			out := r.pullRequest(action, pr)
			if out.Decision == nil {
				t.Fatalf("#%d push %d: %v\n%s", number, k+1, out.Err, out.stdout)
			}
			conclusion, minutes := "success", 3
			if fails != "" {
				conclusion, minutes = "failure", 5
			}
			runID++
			r.srv.AddWorkflowRun(ghfake.WorkflowRun{ID: runID, Branch: branch, SHA: pr.HeadSHA, Event: "pull_request", Status: "completed",
				Conclusion: conclusion, Workflow: "ci.yml", Name: "CI", CreatedAt: at(), StartedAt: at(), UpdatedAt: at().Add(time.Duration(minutes) * time.Minute)})
			if k == 2 && failing != "" && out.Decision.TripReason != "no_progress" {
				t.Fatalf("#%d: the third failing push did not trip no_progress: %s %s", number, out.Decision.State, out.Decision.TripReason)
			}
			if k == 2 && wait > 0 {
				// A maintainer resets the slice wait minutes after the trip.
				r.runs += wait - 1 // the comment's run is one more
				if o := r.comment(number, "alice", "/breaker reset "+out.Decision.Slice); o.Err != nil {
					t.Fatalf("#%d reset: %v", number, o.Err)
				}
			}
		}
		for k, fails := range pushes {
			push(k, fails)
		}
		if wait > 0 {
			push(3, "") // the agent's next attempt passes
		}
		r.srv.SetPullRequestTimes(number, ghfake.PullRequestTimes{Title: fmt.Sprintf("Task %d", i), Created: created, Updated: at(), Closed: at()})
		pr.State = "closed"
		r.srv.AddPullRequest(pr)
		r.git("checkout", "-q", "main")
	}
	return r
}

func rank(agent string) int {
	return map[string]int{agentA: 0, agentB: 1, agentC: 2}[agent]
}

func readStats(t *testing.T, r *rig, o replay.Options) replay.Stats {
	t.Helper()
	// Each read in its own hour of GraphQL points: the month's runs spent
	// theirs over the month, and a token has 1,000 an hour.
	r.srv.SetGraphQLRemaining(ghfake.DefaultGraphQLLimit)
	client := historyClient(t, r, &o)
	o.Repo, o.Since, o.Until, o.Workflow = r.srv.Owner()+"/"+r.srv.Repo(), rigEpoch, rigEpoch.Add(31*24*time.Hour), "ci.yml"
	read := func(ctx context.Context, pr forge.PastPullRequest) ([]ledger.Entry, error) {
		read, err := action.LedgerOf(ctx, client, action.LedgerQuery{PR: pr.Number, CheckName: "greenlight-breaker", TagPrefix: "greenlight/"})
		return read.Entries, err
	}
	st, err := replay.ReadStats(context.Background(), client, replay.StatsOptions{Options: o, Ledger: read})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestStats_EveryFigureOfASeededMonth(t *testing.T) {
	t.Parallel()
	r := seedStatsMonth(t)
	st := readStats(t, r, replay.Options{})
	// Worked out by hand from the seeding above.
	// Pushes: a trip reset is 3 failing + 1 green, one not reset 3; a
	// pull request passing at once 1, one failing once 2. A: 3×4 + 2×3 +
	// 8×1 + 7×2 = 40; B: 2×4 + 2×3 + 7×1 + 7×2 = 35; C: 1×4 + 2×3 + 5×1 +
	// 4×2 = 23.
	want := []replay.AgentStats{{Agent: agentA, PullRequests: 20, Pushes: 40, Tripped: 5}, {Agent: agentB, PullRequests: 18, Pushes: 35, Tripped: 4},
		{Agent: agentC, PullRequests: 12, Pushes: 23, Tripped: 3}}
	if !reflect.DeepEqual(st.ByAgent, want) {
		t.Errorf("by agent %+v, want %+v", st.ByAgent, want)
	}
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	check("listed", st.Listed, 50)
	check("observed", st.Observed, 50)
	check("pushes", st.Pushes, 98)
	check("trips", st.Trips, 12)
	check("trips by reason", st.ByReason, map[string]int{"no_progress": 12})
	// Waits of 30, 60, 90, 120, 240 and 600 minutes: median (90+120)/2.
	check("trip to reset", st.TripToReset, replay.Durations{Count: 6, Median: 105, Max: 600, Pending: 6})
	// 20 pull requests green at push 1, 18 at push 2, 6 at push 4: the
	// 22nd and 23rd of 44 are both 2.
	check("pushes to green", st.PushesToGreen, replay.Distribution{Count: 44, Median: 2, Max: 4})
	check("never green", st.NeverGreen, 6)
	// 12 trips × 3 failing pushes + 18 pull requests failing once, 5 min a
	// failing run.
	check("no progress", st.NoProgress, replay.Saved{Pushes: 54, Minutes: 270})
	// Trips on days 1, 3, 5 | 7, 10, 12 | 15, 18, 20 | 22, 25 | 28.
	var weeks []int
	for _, w := range st.TripsPerWeek {
		weeks = append(weeks, w.Trips)
	}
	check("trips per week", weeks, []int{3, 3, 3, 2, 1})
	// The same error under two test names is one row; the cart's another.
	if len(st.Errors) != 2 {
		t.Fatalf("errors %+v, want 2 rows", st.Errors)
	}
	check("first error's tests", st.Errors[0].Tests, []string{"users.TestLogin", "users.TestSessionRefresh"})
	check("first error's pull requests", st.Errors[0].PullRequests, []int{202, 205, 209, 212, 217, 221, 226, 230})
	check("first error's trips", st.Errors[0].Trips, 8)
	check("second error's tests", st.Errors[1].Tests, []string{"users.TestCart"})
	check("second error's pull requests", st.Errors[1].PullRequests, []int{234, 238, 243, 247})
	if st.Errors[0].Fingerprint == "" || st.Errors[0].Fingerprint == st.Errors[1].Fingerprint {
		t.Errorf("fingerprints %q and %q", st.Errors[0].Fingerprint, st.Errors[1].Fingerprint)
	}
	md := replay.StatsMarkdown(st)
	t.Logf("%d requests for the month; the markdown:\n%s", st.Requests, md)
	checkChart(t, md, []int{3, 3, 3, 2, 1})
	for _, want := range []string{"| 50 | 98 | 12 | 6 | 105 min | 44 | 2 | 54 | 270.0 |", "`copilot-swe-agent[bot]` | 20 | 40 | 5 |", "6 trips are not reset"} {
		if !strings.Contains(md, want) {
			t.Errorf("the markdown lacks %q:\n%s", want, md)
		}
	}

	// From the cache, a second run asks GitHub for the listing only, and
	// says the same.
	dir := t.TempDir()
	first := readStats(t, r, replay.Options{CacheDir: dir})
	r.srv.ResetCalls()
	second := readStats(t, r, replay.Options{CacheDir: dir})
	for _, c := range apiCalls(r.srv) {
		if !strings.HasSuffix(c.Path, "/pulls") {
			t.Errorf("a run with every pull request in the cache asked %s", c)
		}
	}
	first.Requests, second.Requests, first.Cached, second.Cached, first.Estimate, second.Estimate = 0, 0, 0, 0, 0, 0
	if !reflect.DeepEqual(first, second) {
		t.Errorf("from the cache:\n%+v\nfirst read:\n%+v", second, first)
	}
	// A budget is kept, and the cut said.
	r.srv.ResetCalls()
	cut := readStats(t, r, replay.Options{Budget: 40})
	t.Logf("budget 40: %s", cut.Cut)
	if n := len(apiCalls(r.srv)); n > 40 || cut.Cut == "" || cut.Observed >= 50 {
		t.Errorf("budget 40: %d requests, cut %q, %d observed", n, cut.Cut, cut.Observed)
	}
}

// checkChart checks the markdown's mermaid xychart-beta as mermaid reads
// it: one bar a label, the y axis reaching the tallest bar.
func checkChart(t *testing.T, md string, bars []int) {
	t.Helper()
	_, chart, ok := strings.Cut(md, "```mermaid\nxychart-beta\n")
	chart, _, closed := strings.Cut(chart, "\n```")
	if !ok || !closed {
		t.Fatalf("no mermaid xychart-beta block:\n%s", md)
	}
	var labels, values string
	top := 0
	for _, line := range strings.Split(chart, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "x-axis ["):
			labels = strings.TrimSuffix(strings.TrimPrefix(line, "x-axis ["), "]")
		case strings.HasPrefix(line, "bar ["):
			values = strings.TrimSuffix(strings.TrimPrefix(line, "bar ["), "]")
		case strings.HasPrefix(line, "y-axis "):
			fmt.Sscanf(line[strings.LastIndex(line, " ")+1:], "%d", &top)
		case strings.HasPrefix(line, "title "):
		default:
			t.Errorf("the chart has a line mermaid's xychart-beta does not read: %q", line)
		}
	}
	want := make([]string, len(bars))
	for i, b := range bars {
		want[i] = fmt.Sprint(b)
	}
	if values != strings.Join(want, ", ") || len(strings.Split(labels, ", ")) != len(bars) {
		t.Errorf("chart labels [%s], bars [%s]; want %d labels and bars %v", labels, values, len(bars), bars)
	}
	if top < 3 {
		t.Errorf("the y axis stops at %d, under the tallest bar", top)
	}
}
