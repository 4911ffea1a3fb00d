package ghfake

import (
	"cmp"
	"net/http"
	"slices"
	"time"

	"github.com/greenlight-ci/breaker/internal/forge"
)

// PullRequestTimes are a pull request's title and times, for the listing
// `breaker replay` reads; a pull request without them answers the fake's
// epoch, as before.
type PullRequestTimes struct {
	Title                            string
	Created, Updated, Closed, Merged time.Time
}

// SetPullRequestTimes sets pull request number's title and times.
func (s *Server) SetPullRequestTimes(number int, t PullRequestTimes) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prTimes == nil {
		s.prTimes = map[int]PullRequestTimes{}
	}
	s.prTimes[number] = t
}

// withTimes sets m's title and times from what SetPullRequestTimes gave
// (closed_at and merged_at are null while zero, as GitHub answers).
func (s *Server) withTimes(m map[string]any, number int) {
	t, ok := s.prTimes[number]
	if !ok {
		return
	}
	if t.Title != "" {
		m["title"] = t.Title
	}
	m["created_at"], m["updated_at"] = orEpoch(t.Created), orEpoch(t.Updated)
	m["closed_at"], m["merged_at"] = nil, nil
	if !t.Closed.IsZero() {
		m["closed_at"] = orEpoch(t.Closed)
	}
	if !t.Merged.IsZero() {
		m["merged_at"] = orEpoch(t.Merged)
	}
}

// sortPulls orders a listing of GET pulls: by sort=created or updated,
// descending unless direction=asc (GitHub's default direction for them);
// without a sort, by number (GitHub's default, created, gives the same
// order for pull requests added in order).
func (s *Server) sortPulls(r *http.Request, prs []forge.PullRequest) {
	sort, dir := r.URL.Query().Get("sort"), r.URL.Query().Get("direction")
	if sort == "" || sort == "popularity" || sort == "long-running" {
		slices.SortFunc(prs, func(a, b forge.PullRequest) int { return a.Number - b.Number })
		return
	}
	key := func(pr forge.PullRequest) time.Time {
		t := s.prTimes[pr.Number]
		if sort == "updated" {
			return t.Updated
		}
		return t.Created
	}
	slices.SortFunc(prs, func(a, b forge.PullRequest) int {
		c := cmp.Or(key(a).Compare(key(b)), cmp.Compare(a.Number, b.Number))
		if dir != "asc" {
			c = -c
		}
		return c
	})
}
