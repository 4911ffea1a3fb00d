package replay

import (
	"slices"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// Schema names the JSON report's shape (docs/replay.md); fields are only
// ever added under it.
const Schema = "greenlight-replay/v1"

// DefaultArtifacts are the artifact names read for result files, and
// DefaultResults the files read in them, when the flags do not say.
var (
	DefaultArtifacts = []string{"*test*", "*result*", "*junit*", "*report*"}
	DefaultResults   = []string{"**/*.xml", "**/*.trx", "**/*.tap", "**/*test*.json"}
)

// Report is a replay: what was read, and where the breaker would have
// stopped each agent's pull request.
type Report struct {
	Schema   string    `json:"schema"`
	Repo     string    `json:"repo"`
	Since    time.Time `json:"since"`
	Until    time.Time `json:"until"`
	Workflow string    `json:"workflow,omitempty"`
	Agents   []string  `json:"agents,omitempty"` // empty: the known agents
	Policy   string    `json:"policy"`
	// Listed is how many pull requests were created in the window, Cached
	// how many agent pull requests came from the cache.
	Listed int `json:"listed"`
	Cached int `json:"cached"`
	// Requests are the API requests made; Estimate what the window could
	// cost at most, said once the runs are read and before the evidence
	// (the requests so far and the worst case of the rest); Budget the
	// bound (0 = none); Cut
	// says where the budget stopped the window, "" when it did not.
	Requests     int           `json:"requests"`
	Estimate     int           `json:"estimate"`
	Budget       int           `json:"budget"`
	Cut          string        `json:"cut,omitempty"`
	PullRequests []PullRequest `json:"pull_requests"`
	Summary      Summary       `json:"summary"`
	Notes        []string      `json:"notes,omitempty"`
}

// PullRequest is one agent pull request, replayed.
type PullRequest struct {
	Number    int       `json:"number"`
	Title     string    `json:"title"`
	Author    string    `json:"author"`
	Branch    string    `json:"branch"`
	State     string    `json:"state"` // open, closed, merged
	CreatedAt time.Time `json:"created_at"`
	Pushes    []Push    `json:"pushes"`
	// Trip is the push where the breaker would have stopped the agent,
	// nil when it would not have.
	Trip *Trip `json:"trip"`
	// AfterTrip is what came after the trip: the pushes and CI minutes
	// stopping would have saved.
	AfterTrip Saved `json:"after_trip"`
	// GreenAtEnd says CI passed the last push.
	GreenAtEnd bool `json:"green_at_end"`
	// Recovered says it tripped and CI passed a later push: a person should
	// judge whether the trip was right (a false-positive candidate).
	Recovered bool `json:"recovered"`
	// Incomplete says a push could not be judged (its head is not in the
	// clone); the push says why.
	Incomplete bool `json:"incomplete,omitempty"`
	// Resets are the maintainers' /breaker reset comments the Action would
	// have honoured: the counts restart there, as they would have.
	Resets []Reset `json:"resets,omitempty"`
}

// Reset is a maintainer's /breaker reset of a pull request, where the
// Action would have recorded it; Note says why it would not have, when it
// would not (the slice it names is not the pull request's).
type Reset struct {
	At     time.Time `json:"at"`
	Author string    `json:"author"`
	Slice  string    `json:"slice,omitempty"`
	Head   string    `json:"head,omitempty"`
	Note   string    `json:"note,omitempty"`
}

// Push is one pushed head CI ran on, and the breaker's verdict there.
type Push struct {
	N              int       `json:"n"`
	Head           string    `json:"head"`
	RunID          int64     `json:"run_id"`
	At             time.Time `json:"at"`
	Conclusion     string    `json:"conclusion"`
	Minutes        float64   `json:"minutes"`
	Evidence       string    `json:"evidence"`                  // artifact, log, conclusion
	EvidenceDetail string    `json:"evidence_detail,omitempty"` // the artifact, the runners, or why none
	Failing        []string  `json:"failing"`
	State          string    `json:"state"`            // CLOSED, OPEN, HALF_OPEN; "" when not judged
	Reason         string    `json:"reason,omitempty"` // the trip reason while OPEN
	Test           string    `json:"test,omitempty"`   // the test that tripped, for per_test
	Slice          string    `json:"slice,omitempty"`
	FailedInARow   int       `json:"failed_in_a_row"`
	Note           string    `json:"note,omitempty"`
}

// Trip is where the breaker would have stopped the agent.
type Trip struct {
	Push   int    `json:"push"` // 1-based
	Head   string `json:"head"`
	Reason string `json:"reason"`
	Test   string `json:"test,omitempty"`
}

// Saved are the pushes and CI minutes after a trip.
type Saved struct {
	Pushes  int     `json:"pushes"`
	Minutes float64 `json:"minutes"`
}

// Summary sums the window up.
type Summary struct {
	PullRequests int            `json:"pull_requests"`
	Pushes       int            `json:"pushes"`
	Tripped      int            `json:"tripped"`
	Saved        Saved          `json:"saved"`          // pushes and minutes after every trip
	Recovered    []int          `json:"recovered"`      // tripped, then green: for a person to judge
	ByReason     map[string]int `json:"by_reason"`      // trips by reason
	ByEvidence   map[string]int `json:"by_evidence"`    // pushes by the evidence judged on
	TripsPerWeek []Week         `json:"trips_per_week"` // from the window's first week
}

// Week counts the trips of the week starting Start (a Monday, UTC).
type Week struct {
	Start time.Time `json:"start"`
	Trips int       `json:"trips"`
}

func newPullRequest(p pullRead) PullRequest {
	state := p.PR.State
	if !p.PR.MergedAt.IsZero() {
		state = "merged"
	}
	return PullRequest{Number: p.PR.Number, Title: p.PR.Title, Author: p.PR.Author, Branch: p.PR.HeadRef,
		State: state, CreatedAt: p.PR.CreatedAt.UTC(), Pushes: []Push{}}
}

// summarise fills each pull request's trip and what came after it, and
// the window's summary.
func (r *Report) summarise() {
	s := Summary{ByReason: map[string]int{}, ByEvidence: map[string]int{}, Recovered: []int{}}
	weeks := map[time.Time]int{}
	for i := range r.PullRequests {
		pr := &r.PullRequests[i]
		s.PullRequests++
		for j, p := range pr.Pushes {
			s.Pushes++
			s.ByEvidence[p.Evidence]++
			if pr.Trip == nil && p.State == string(breaker.StateOpen) {
				pr.Trip = &Trip{Push: j + 1, Head: p.Head, Reason: p.Reason, Test: p.Test}
				weeks[weekOf(p.At)]++
				continue
			}
			if pr.Trip != nil {
				pr.AfterTrip.Pushes++
				pr.AfterTrip.Minutes = round1(pr.AfterTrip.Minutes + p.Minutes)
				if p.Conclusion == "success" {
					pr.Recovered = true
				}
			}
		}
		if n := len(pr.Pushes); n > 0 {
			pr.GreenAtEnd = pr.Pushes[n-1].Conclusion == "success"
		}
		if pr.Trip != nil {
			s.Tripped++
			s.ByReason[pr.Trip.Reason]++
			s.Saved.Pushes += pr.AfterTrip.Pushes
			s.Saved.Minutes = round1(s.Saved.Minutes + pr.AfterTrip.Minutes)
			if pr.Recovered {
				s.Recovered = append(s.Recovered, pr.Number)
			}
		}
	}
	for w := weekOf(r.Since); !w.After(r.Until); w = w.AddDate(0, 0, 7) {
		s.TripsPerWeek = append(s.TripsPerWeek, Week{Start: w, Trips: weeks[w]})
		if len(s.TripsPerWeek) >= 106 {
			break // two years: a chart wider than that says nothing more
		}
	}
	slices.Sort(s.Recovered)
	r.Summary = s
}

// weekOf is the Monday (UTC) of t's week.
func weekOf(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
}
