package ghapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

const refPattern = "/repos/*/*/git/ref/**"

func epoch(d time.Duration) string { return strconv.FormatInt(fixedNow.Add(d).Unix(), 10) }

func TestClient_RateLimitsWaitThenSucceed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		failures []ghfake.Failure
		want     []time.Duration
	}{
		{"429 retry-after", []ghfake.Failure{{Status: 429, Header: map[string]string{"Retry-After": "3"}}},
			[]time.Duration{3 * time.Second}},
		{"403 primary limit until reset", []ghfake.Failure{{Status: 403, Header: map[string]string{
			"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(30 * time.Second)}}},
			[]time.Duration{31 * time.Second}},
		{"403 secondary limit with retry-after", []ghfake.Failure{{Status: 403, Body: ghfake.BodySecondaryRateLimit,
			Header: map[string]string{"Retry-After": "5"}}}, []time.Duration{5 * time.Second}},
		{"403 secondary limit without headers waits a minute", []ghfake.Failure{{Status: 403, Body: ghfake.BodySecondaryRateLimit}},
			[]time.Duration{time.Minute}},
		{"429 twice", []ghfake.Failure{{Status: 429, Header: map[string]string{"Retry-After": "2"}, Times: 2}},
			[]time.Duration{2 * time.Second, 2 * time.Second}},
		{"429 then 502", []ghfake.Failure{{Status: 429, Header: map[string]string{"Retry-After": "2"}}, {Status: 502}},
			[]time.Duration{2 * time.Second, time.Second}},
		{"5xx twice", []ghfake.Failure{{Status: 500}, {Status: 503}},
			[]time.Duration{time.Second, 2 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newFake(t)
			srv.SetRef(checkpoint, shaA)
			for _, f := range tt.failures {
				f.Method, f.Path = "GET", refPattern
				srv.Fail(f)
			}
			c, s := newClient(t, srv)
			sha, found, err := c.GetRef(context.Background(), checkpoint)
			if err != nil || !found || sha != shaA {
				t.Fatalf("GetRef = %q, %v, %v; want %q, true, nil", sha, found, err, shaA)
			}
			if diff := cmp.Diff(tt.want, s.waits()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if got, want := srv.CallCount(), len(tt.want)+1; got != want {
				t.Errorf("got %d calls, want %d", got, want)
			}
		})
	}
}

func TestClient_RateLimitBeyondBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		failure ghfake.Failure
		want    string
	}{
		{"primary limit resets in ten minutes",
			ghfake.Failure{Status: 403, Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(10 * time.Minute)}},
			"get ref " + checkpoint + ": github api rate limit (http 403): resets at 2024-05-01T12:10:01Z (in 10m1s), beyond the 3m0s wait bound"},
		{"429 retry-after beyond bound",
			ghfake.Failure{Status: 429, Header: map[string]string{"Retry-After": "240"}},
			"get ref " + checkpoint + ": github api rate limit (http 429): resets at 2024-05-01T12:04:00Z (in 4m0s), beyond the 3m0s wait bound"},
		{"waits add up past the bound",
			ghfake.Failure{Status: 429, Header: map[string]string{"Retry-After": "100"}, Times: 2},
			"get ref " + checkpoint + ": github api rate limit (http 429): resets at 2024-05-01T12:01:40Z (in 1m40s), beyond the 3m0s wait bound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newFake(t)
			tt.failure.Method, tt.failure.Path = "GET", refPattern
			srv.Fail(tt.failure)
			c, _ := newClient(t, srv)
			_, _, err := c.GetRef(context.Background(), checkpoint)
			var limit *RateLimitError
			if !errors.As(err, &limit) {
				t.Fatalf("got %v, want a *RateLimitError", err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got error %q, want %q", got, tt.want)
			}
		})
	}
}

func TestClient_ErrorsNotRetried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		want   error
	}{
		{"403 forbidden", 403, forge.ErrForbidden},
		{"401 unauthorized", 401, ErrUnauthorized},
		{"404 not found", 404, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newFake(t)
			srv.AddPullRequest(forge.PullRequest{Number: 4, HeadSHA: shaA, Author: "agent"})
			srv.FailNext("POST", "/repos/*/*/issues/4/comments", tt.status, nil)
			c, s := newClient(t, srv)
			_, err := c.CreateComment(context.Background(), 4, "diagnostic")
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want errors.Is %v", err, tt.want)
			}
			if got := srv.CallCount(); got != 1 {
				t.Errorf("got %d calls, want 1 (no retry)", got)
			}
			if got := len(s.waits()); got != 0 {
				t.Errorf("got %d waits, want 0", got)
			}
		})
	}
}

// A 5xx on an idempotent request is tried three times with a backoff; on a
// POST, which GitHub may have carried out before the answer was lost, it is
// never sent again by the transport (the caller checks before re-posting).
func TestClient_ServerErrorsGiveUp(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.AddPullRequest(forge.PullRequest{Number: 4, HeadSHA: shaA, Author: "agent"})
	srv.Fail(ghfake.Failure{Method: "GET", Status: 502, Times: 5})
	c, s := newClient(t, srv)
	_, err := c.ListComments(context.Background(), 4)
	if err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("got %v, want an error naming 502", err)
	}
	if got, want := srv.CallCount(), 3; got != want {
		t.Errorf("GET: got %d calls, want %d", got, want)
	}
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, s.waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}

	post := newFake(t)
	post.AddPullRequest(forge.PullRequest{Number: 4, HeadSHA: shaA, Author: "agent"})
	post.Fail(ghfake.Failure{Method: "POST", Status: 502, Times: 5})
	pc, _ := newClient(t, post)
	if _, err := pc.CreateComment(context.Background(), 4, "diagnostic"); err == nil {
		t.Error("a 502 on POST is not an error")
	}
	if got := post.CallCount(); got != 1 {
		t.Errorf("POST: got %d calls, want 1: a POST is never resent blindly", got)
	}
}

// Attack 8: a 1 GB body on an error is read no further than 1 MiB.
func TestClient_ErrorBodiesAreCapped(t *testing.T) {
	t.Parallel()
	body := &endless{}
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 404, Status: "404 Not Found", Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(body), Request: req}, nil
	})
	c, err := New(Config{Token: testToken, APIURL: "https://api.example/", Owner: "o", Repo: "r", HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListComments(context.Background(), 4); err == nil {
		t.Fatal("a 404 is not an error")
	}
	if body.n > maxErrorBody+64<<10 {
		t.Errorf("read %d bytes of the error body, want at most about %d", body.n, maxErrorBody)
	}
}

// endless is a 1 GB body, counting what was read of it.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n >= 1<<30 {
		return 0, io.EOF
	}
	for i := range p {
		p[i] = 'x'
	}
	e.n += int64(len(p))
	return len(p), nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Attack 23/11: a 403 names the permission GitHub says the token lacks.
func TestClient_ForbiddenNamesThePermission(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.FailNext("POST", "", 403, map[string]string{"X-Accepted-Github-Permissions": "contents=write"})
	c, _ := newClient(t, srv)
	err := c.CreateRef(context.Background(), "tags/greenlight/checkpoint/S-3", shaA)
	if err == nil || !strings.Contains(err.Error(), "needs the permission contents=write") {
		t.Errorf("got %v, want the permission named", err)
	}
}

func TestClient_RetryResendsBody(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.AddPullRequest(forge.PullRequest{Number: 4, HeadSHA: shaA, Author: "agent"})
	srv.FailNext("POST", "", 429, map[string]string{"Retry-After": "1"})
	c, _ := newClient(t, srv)
	if _, err := c.CreateComment(context.Background(), 4, "the diagnostic"); err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	if len(calls) != 2 || calls[0].Body != calls[1].Body {
		t.Errorf("got calls %q, want two with the same body", calls)
	}
	if got := srv.Comments(4); len(got) != 1 || got[0].Body != "the diagnostic" {
		t.Errorf("got comments %v, want one with the diagnostic", got)
	}
}

func TestClient_WaitCancelled(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.FailNext("GET", refPattern, 429, map[string]string{"Retry-After": "1"})
	ctx, cancel := context.WithCancel(context.Background())
	c, _ := newClient(t, srv, func(cfg *Config) {
		cfg.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	})
	_, _, err := c.GetRef(ctx, checkpoint)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestClient_ExhaustedQuotaIsWaitedNotRefused(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.SetRef(checkpoint, shaA)
	// The last request of the quota goes through and says so; go-github
	// alone would refuse the next request without asking.
	srv.Fail(ghfake.Failure{Method: "DELETE", Status: 204, Body: " ", Header: map[string]string{
		"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)}})
	c, _ := newClient(t, srv)
	ctx := context.Background()
	if err := c.DeleteRef(ctx, checkpoint); err != nil {
		t.Fatal(err)
	}
	if _, found, err := c.GetRef(ctx, checkpoint); err != nil || !found {
		t.Errorf("GetRef after exhaustion = %v, %v; want found, nil", found, err)
	}
	if got, want := srv.CallCount(), 2; got != want {
		t.Errorf("got %d calls, want %d", got, want)
	}
}

// Attack 9: each attempt has its own deadline, apart from the rate-limit
// wait budget: a wait longer than one attempt's deadline is waited out
// (it used to end in "context deadline exceeded" at the client's timeout).
func TestClient_WaitLongerThanARequestsDeadline(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.AddPullRequest(forge.PullRequest{Number: 4, HeadSHA: shaA, Author: "agent"})
	srv.FailNext("GET", "", 429, map[string]string{"Retry-After": "1"})
	c, _ := newClient(t, srv, func(cfg *Config) {
		cfg.Sleep = nil // a real wait
		cfg.RequestTimeout = 300 * time.Millisecond
		cfg.MaxWait = 5 * time.Second
	})
	if _, err := c.ListComments(context.Background(), 4); err != nil {
		t.Fatalf("got %v, want the limit waited out", err)
	}
	if got := srv.CallCount(); got != 2 {
		t.Errorf("got %d calls, want 2", got)
	}
}

// A budget counts every attempt sent (a retried 5xx is two) and refuses
// the request past its limit unsent, with forge.ErrBudget, never retried.
func TestClient_BudgetRefusesThePastTheLimitUnsent(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.SetRef(checkpoint, shaA)
	srv.Fail(ghfake.Failure{Method: "GET", Path: refPattern, Status: 502})
	b := &Budget{Limit: 3}
	c, s := newClient(t, srv, func(cfg *Config) { cfg.Budget = b })
	if _, _, err := c.GetRef(context.Background(), checkpoint); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.GetRef(context.Background(), checkpoint); err != nil {
		t.Fatal(err)
	}
	_, _, err := c.GetRef(context.Background(), checkpoint)
	if !errors.Is(err, forge.ErrBudget) {
		t.Fatalf("the fourth request: %v, want forge.ErrBudget", err)
	}
	if b.Used() != 3 || srv.CallCount() != 3 || len(s.waits()) != 1 {
		t.Errorf("used %d, GitHub received %d, waits %v; want 3, 3 and one wait (the 502's)", b.Used(), srv.CallCount(), s.waits())
	}
}
