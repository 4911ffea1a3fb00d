package replay

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// `breaker stats`: once the breaker is installed, its ledger holds what CI
// saw at every push of every pull request. Stats reads it back across the
// window's pull requests and sums it up: who was observed, how often and
// why the breaker tripped, how long a trip waited for a person, how many
// pushes it took to reach green, the errors that trip most across pull
// requests, and the CI minutes spent on pushes that made no progress.

// StatsSchema names the JSON shape of `breaker stats` (docs/replay.md).
const StatsSchema = "greenlight-stats/v1"

// LedgerReader reads a pull request's ledger entries, oldest first, as
// the Action reads them (the adapter follows the entries' links).
type LedgerReader func(ctx context.Context, pr forge.PastPullRequest) ([]ledger.Entry, error)

// maxErrorRows bounds the errors listed.
const maxErrorRows = 10

// Stats is what the ledger says about the window.
type Stats struct {
	Schema   string    `json:"schema"`
	Repo     string    `json:"repo"`
	Since    time.Time `json:"since"`
	Until    time.Time `json:"until"`
	Agents   []string  `json:"agents,omitempty"` // empty: every author
	Listed   int       `json:"listed"`           // pull requests created in the window
	Cached   int       `json:"cached"`
	Requests int       `json:"requests"`
	Estimate int       `json:"estimate"`
	Budget   int       `json:"budget"`
	Cut      string    `json:"cut,omitempty"`
	// Observed are the pull requests the breaker observed (one entry at
	// least), and ByAgent the same by author.
	Observed int            `json:"observed"`
	ByAgent  []AgentStats   `json:"by_agent"`
	Pushes   int            `json:"pushes"`
	Trips    int            `json:"trips"` // a slice going OPEN, once until its reset
	ByReason map[string]int `json:"by_reason"`
	// TripToReset is how long trips waited for a maintainer's reset.
	TripToReset Durations `json:"trip_to_reset"`
	// PushesToGreen counts, for each pull request that reached a head
	// whose tests all passed, its pushes up to that head.
	PushesToGreen Distribution `json:"pushes_to_green"`
	NeverGreen    int          `json:"never_green"`
	// Errors are the errors at the trips, the same error (its
	// fingerprint) across pull requests as one row, most pull requests
	// first.
	Errors []ErrorRow `json:"errors"`
	// NoProgress are the pushes the breaker counted as failed (no
	// progress) and the CI minutes their runs took.
	NoProgress   Saved    `json:"no_progress"`
	TripsPerWeek []Week   `json:"trips_per_week"`
	Notes        []string `json:"notes,omitempty"`
}

// AgentStats are one author's pull requests.
type AgentStats struct {
	Agent        string `json:"agent"`
	PullRequests int    `json:"pull_requests"`
	Pushes       int    `json:"pushes"`
	Tripped      int    `json:"tripped"` // pull requests with a trip
}

// Durations sums up waits, in minutes.
type Durations struct {
	Count   int     `json:"count"`
	Median  float64 `json:"median_minutes"`
	Max     float64 `json:"max_minutes"`
	Pending int     `json:"pending"` // trips not reset (yet)
}

// Distribution sums up counts.
type Distribution struct {
	Count  int     `json:"count"`
	Median float64 `json:"median"`
	Max    int     `json:"max"`
}

// ErrorRow is one error at the trips of one or more pull requests.
type ErrorRow struct {
	Fingerprint  string   `json:"fingerprint"`
	Tests        []string `json:"tests"`
	PullRequests []int    `json:"pull_requests"`
	Trips        int      `json:"trips"`
}

// StatsOptions are the inputs of Stats: the window and the budget of
// Options, and the ledger reader.
type StatsOptions struct {
	Options
	Ledger LedgerReader
}

// pullStats is what stats keeps of one pull request (the cache's).
type pullStats struct {
	Schema string                `json:"schema"`
	Key    string                `json:"key"`
	PR     forge.PastPullRequest `json:"pr"`
	Pushes []statPush            `json:"pushes"`
}

// statPush is one observed head: its verdicts and what its run cost.
type statPush struct {
	Head    string    `json:"head"`
	At      time.Time `json:"at"`
	Minutes float64   `json:"minutes"`
	Green   bool      `json:"green"`
	Marks   []mark    `json:"marks"` // every entry at the head, in order
}

// mark is one ledger entry's verdict for its slice.
type mark struct {
	At      time.Time   `json:"at"`
	Slice   string      `json:"slice"`
	State   string      `json:"state"`
	Reason  string      `json:"reason,omitempty"`
	Failed  int         `json:"failed"` // the slice's failed attempts
	Reset   bool        `json:"reset,omitempty"`
	ResetAt time.Time   `json:"reset_at,omitzero"`
	Failing []failCause `json:"failing,omitempty"`
}

type failCause struct {
	Test        string `json:"test"`
	Fingerprint string `json:"fingerprint"`
}

const statsCacheSchema = "greenlight-stats-cache/v1"

// ReadStats reads the window's pull requests and their ledgers and sums
// them up.
func ReadStats(ctx context.Context, src forge.History, o StatsOptions) (Stats, error) {
	if o.Until.IsZero() {
		o.Until = time.Now().UTC()
	}
	if o.Requests == nil {
		o.Requests = func() int { return 0 }
	}
	c, err := newCache(o.CacheDir, o.Repo, fmt.Sprintf("stats workflow=%q %s", o.Workflow, o.CacheKey))
	if err != nil {
		return Stats{}, err
	}
	r := &reader{src: src, opts: o.Options, cache: c}
	st := Stats{Schema: StatsSchema, Repo: o.Repo, Since: o.Since.UTC(), Until: o.Until.UTC(), Agents: o.Agents, Budget: o.Budget}
	listing, err := r.window(ctx)
	st.Listed = len(listing)
	var prs []forge.PastPullRequest
	for _, pr := range listing {
		if len(o.Agents) == 0 || slices.ContainsFunc(o.Agents, func(a string) bool { return forge.SameLogin(a, pr.Author) }) {
			prs = append(prs, pr)
		}
	}
	if errors.Is(err, ErrBudget) {
		st.Cut = fmt.Sprintf("the budget of %d requests ran out while listing the pull requests, after %d of them", o.Budget, st.Listed)
	} else if err != nil {
		return Stats{}, err
	}
	var read []pullStats
	var todo []forge.PastPullRequest
	for _, pr := range prs {
		var p pullStats
		if c.dir != "" && c.load(c.statsFile(pr.Number), &p) && p.Schema == statsCacheSchema && p.Key == c.key && p.PR.UpdatedAt.Equal(pr.UpdatedAt) {
			read = append(read, p)
			st.Cached++
			continue
		}
		todo = append(todo, pr)
	}
	// Each pull request: its ledger (one GraphQL query a hundred commits)
	// and its runs (one request a hundred runs).
	st.Estimate = 2 * len(todo)
	o.say(Progress{Phase: "ledger", Total: len(todo), Line: fmt.Sprintf("%d pull requests (%d from the cache); reading the ledger and the runs of %d: at least %d requests (budget %s)",
		len(prs), st.Cached, len(todo), st.Estimate, budgetWords(o.Budget))})
	for i, pr := range todo {
		p, err := r.statsOf(ctx, o.Ledger, pr)
		if errors.Is(err, ErrBudget) {
			st.Cut = fmt.Sprintf("the budget of %d requests ran out reading pull request #%d (created %s): it and %d older ones were not read",
				o.Budget, pr.Number, pr.CreatedAt.UTC().Format("2006-01-02"), len(todo)-i-1)
			break
		}
		if err != nil {
			return Stats{}, err
		}
		if c.dir != "" {
			p.Schema, p.Key = statsCacheSchema, c.key
			if err := c.store(c.statsFile(pr.Number), p); err != nil {
				st.Notes = append(st.Notes, fmt.Sprintf("the cache could not keep pull request #%d: %v", pr.Number, err))
			}
		}
		read = append(read, p)
		o.say(Progress{Phase: "ledger", Done: i + 1, Total: len(todo), Line: fmt.Sprintf("#%d: %d pushes observed", pr.Number, len(p.Pushes))})
	}
	st.Requests = o.Requests()
	slices.SortFunc(read, func(a, b pullStats) int { return a.PR.CreatedAt.Compare(b.PR.CreatedAt) })
	st.sum(read)
	return st, nil
}

func (c *cache) statsFile(n int) string {
	return filepath.Join(c.dir, "pr-"+strconv.Itoa(n)+".stats.json")
}

// statsOf reads one pull request's ledger and runs: a push a head its
// entries observed, with the minutes of its runs.
func (r *reader) statsOf(ctx context.Context, read LedgerReader, pr forge.PastPullRequest) (pullStats, error) {
	entries, err := read(ctx, pr)
	if err != nil {
		return pullStats{}, err
	}
	p := pullStats{PR: pr}
	if len(entries) == 0 {
		return p, nil
	}
	heads, err := r.runs(ctx, pr)
	if err != nil {
		return pullStats{}, err
	}
	minutes := map[string]float64{}
	for _, h := range heads {
		minutes[h.SHA] = h.Minutes
	}
	ledger.Sort(entries)
	at := map[string]int{}
	for _, e := range entries {
		if e.Kind == ledger.KindBase {
			continue
		}
		head := strings.ToLower(e.Head)
		i, ok := at[head]
		if !ok {
			i = len(p.Pushes)
			at[head] = i
			p.Pushes = append(p.Pushes, statPush{Head: head, At: e.ObservedAt, Minutes: minutes[head]})
		}
		push := &p.Pushes[i]
		push.Green = push.Green || (e.Infra == nil && e.Counts.Total > 0 && e.Counts.Failed+e.Counts.Errored == 0)
		m := mark{At: e.ObservedAt, Slice: e.Slice, State: string(e.Verdict.State), Reason: string(e.Verdict.TripReason), Failed: e.Verdict.TotalFailed}
		if e.Reset != nil {
			m.Reset, m.ResetAt = true, e.Reset.At
		}
		for _, t := range e.Tests {
			if t.Status.Failed() {
				m.Failing = append(m.Failing, failCause{Test: t.FullName(), Fingerprint: t.Fingerprint})
			}
		}
		push.Marks = append(push.Marks, m)
	}
	return p, nil
}

// sum sums the pull requests up.
func (st *Stats) sum(prs []pullStats) {
	st.ByReason = map[string]int{}
	s := &summer{st: st, agents: map[string]*AgentStats{}, weeks: map[time.Time]int{}, errs: map[string]*ErrorRow{}}
	for _, p := range prs {
		if len(p.Pushes) > 0 {
			s.pull(p)
		}
	}
	s.byAgent()
	s.durations()
	s.errors()
	for w := weekOf(st.Since); !w.After(st.Until); w = w.AddDate(0, 0, 7) {
		st.TripsPerWeek = append(st.TripsPerWeek, Week{Start: w, Trips: s.weeks[w]})
		if len(st.TripsPerWeek) >= 106 {
			break
		}
	}
}

// summer is sum's work: the figures by agent, week and error, the waits
// for a reset and the pushes to green, as the pull requests are read.
type summer struct {
	st      *Stats
	agents  map[string]*AgentStats
	weeks   map[time.Time]int
	errs    map[string]*ErrorRow
	waits   []float64
	toGreen []int
}

// pull adds one pull request with pushes.
func (s *summer) pull(p pullStats) {
	st := s.st
	st.Observed++
	a := s.agents[p.PR.Author]
	if a == nil {
		a = &AgentStats{Agent: p.PR.Author}
		s.agents[p.PR.Author] = a
	}
	a.PullRequests++
	a.Pushes += len(p.Pushes)
	st.Pushes += len(p.Pushes)
	green := slices.IndexFunc(p.Pushes, func(push statPush) bool { return push.Green }) + 1
	if green > 0 {
		s.toGreen = append(s.toGreen, green)
	} else {
		st.NeverGreen++
	}
	open := map[string]time.Time{} // slice → when it tripped
	failed := map[string]int{}     // slice → failed attempts at the last entry
	tripped := false
	for _, push := range p.Pushes {
		counted := false
		for _, m := range push.Marks {
			c, t := s.mark(p.PR.Number, m, open, failed)
			counted, tripped = counted || c, tripped || t
		}
		if counted {
			st.NoProgress.Pushes++
			st.NoProgress.Minutes = round1(st.NoProgress.Minutes + push.Minutes)
		}
	}
	st.TripToReset.Pending += len(open)
	if tripped {
		a.Tripped++
	}
}

// mark adds one ledger entry of pull request pr: a reset ends its slice's
// trip (the wait is counted), a failed attempt more than the slice had is
// counted, and the first OPEN of a slice is a trip, whose failing tests
// join the error rows.
func (s *summer) mark(pr int, m mark, open map[string]time.Time, failed map[string]int) (counted, tripped bool) {
	if m.Reset {
		if t, ok := open[m.Slice]; ok {
			s.waits = append(s.waits, m.ResetAt.Sub(t).Minutes())
			delete(open, m.Slice)
		}
		failed[m.Slice] = m.Failed
		return false, false
	}
	counted = m.Failed > failed[m.Slice]
	failed[m.Slice] = max(failed[m.Slice], m.Failed)
	if _, ok := open[m.Slice]; ok || m.State != string(breaker.StateOpen) {
		return counted, false
	}
	open[m.Slice] = m.At
	s.st.Trips++
	s.st.ByReason[m.Reason]++
	s.weeks[weekOf(m.At)]++
	seen := map[string]bool{}
	for _, f := range m.Failing {
		key := f.Fingerprint
		if key == "" {
			key = "test:" + f.Test
		}
		row := s.errs[key]
		if row == nil {
			row = &ErrorRow{Fingerprint: f.Fingerprint}
			s.errs[key] = row
		}
		if !slices.Contains(row.Tests, f.Test) {
			row.Tests = append(row.Tests, f.Test)
		}
		if !slices.Contains(row.PullRequests, pr) {
			row.PullRequests = append(row.PullRequests, pr)
		}
		if !seen[key] {
			row.Trips++
			seen[key] = true
		}
	}
	return counted, true
}

// byAgent lists the agents, most pull requests first.
func (s *summer) byAgent() {
	st := s.st
	for _, a := range s.agents {
		st.ByAgent = append(st.ByAgent, *a)
	}
	sort.Slice(st.ByAgent, func(i, j int) bool {
		x, y := st.ByAgent[i], st.ByAgent[j]
		return x.PullRequests > y.PullRequests || (x.PullRequests == y.PullRequests && x.Agent < y.Agent)
	})
	if st.ByAgent == nil {
		st.ByAgent = []AgentStats{}
	}
}

// durations are the waits for a reset and the pushes to green.
func (s *summer) durations() {
	st := s.st
	st.TripToReset.Count = len(s.waits)
	if len(s.waits) > 0 {
		slices.Sort(s.waits)
		st.TripToReset.Median = round1(medianOf(s.waits))
		st.TripToReset.Max = round1(s.waits[len(s.waits)-1])
	}
	st.PushesToGreen.Count = len(s.toGreen)
	if len(s.toGreen) > 0 {
		slices.Sort(s.toGreen)
		f := make([]float64, len(s.toGreen))
		for i, n := range s.toGreen {
			f[i] = float64(n)
		}
		st.PushesToGreen.Median = medianOf(f)
		st.PushesToGreen.Max = s.toGreen[len(s.toGreen)-1]
	}
}

// errors are the error rows, the ones across most pull requests first.
func (s *summer) errors() {
	st := s.st
	st.Errors = []ErrorRow{}
	for _, row := range s.errs {
		slices.Sort(row.Tests)
		slices.Sort(row.PullRequests)
		st.Errors = append(st.Errors, *row)
	}
	sort.Slice(st.Errors, func(i, j int) bool {
		a, b := st.Errors[i], st.Errors[j]
		if len(a.PullRequests) != len(b.PullRequests) {
			return len(a.PullRequests) > len(b.PullRequests)
		}
		if a.Trips != b.Trips {
			return a.Trips > b.Trips
		}
		return strings.Join(a.Tests, ",") < strings.Join(b.Tests, ",")
	})
	if len(st.Errors) > maxErrorRows {
		st.Errors = st.Errors[:maxErrorRows]
	}
}

// medianOf is the median of sorted values.
func medianOf(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
