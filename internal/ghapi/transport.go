package ghapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/greenlight-ci/breaker/internal/forge"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofri/go-github-ratelimit/v2/github_ratelimit/github_secondary_ratelimit"
)

const (
	// serverAttempts bounds the tries of a request answered 5xx.
	serverAttempts = 3
	// limitRetries bounds the retries of a rate-limited request.
	limitRetries = 5
	// defaultLimitWait is GitHub's advice when a rate limit names no time.
	defaultLimitWait = time.Minute
)

// RateLimitError says that GitHub's rate limit would outlast the wait
// bound; the request was not retried.
type RateLimitError struct {
	Status int           // 403 or 429; 200 for GraphQL's RATE_LIMITED
	Reset  time.Time     // when GitHub says the limit lifts
	Wait   time.Duration // how long that is from the last answer
	Bound  time.Duration // Config.MaxWait
	// GraphQL is true for GraphQL's points an hour, a budget of its own.
	GraphQL bool
}

// Error says which limit and when it resets.
func (e *RateLimitError) Error() string {
	what := fmt.Sprintf("github api rate limit (http %d)", e.Status)
	if e.GraphQL {
		what = "github graphql api rate limit (RATE_LIMITED: the hour's GraphQL points are spent)"
	}
	return fmt.Sprintf("%s: resets at %s (in %s), beyond the %s wait bound",
		what, e.Reset.UTC().Format(time.RFC3339), e.Wait.Round(time.Second), e.Bound)
}

// Budget counts a client's API requests (every attempt, GraphQL
// included; the hosts downloads are redirected to are not the API) and
// refuses, with forge.ErrBudget, the one that would pass Limit (0: no
// limit). It is safe for concurrent use.
type Budget struct {
	mu    sync.Mutex
	Limit int
	used  int
}

// Used is how many requests were sent.
func (b *Budget) Used() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

func (b *Budget) take() bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.Limit > 0 && b.used >= b.Limit {
		return false
	}
	b.used++
	return true
}

// transport retries rate-limited requests after the wait GitHub asks
// for (within a bound), and 5xx answers with a short backoff. 401, 403
// without a rate limit, 404 and 422 pass through untouched.
type transport struct {
	base           http.RoundTripper
	maxWait        time.Duration
	attemptTimeout time.Duration // the deadline of each attempt
	sleep          func(context.Context, time.Duration) error
	now            func() time.Time
	// maxBody caps a success body; 0 means maxSuccessBody. The artifact
	// download has its own, larger cap (MaxArtifactBytes).
	maxBody int64
	// budget counts the API requests sent (each attempt) and refuses the
	// one past its limit; nil for the download hosts, which are not the API.
	budget *Budget
}

// The caps of a response body: GitHub's error bodies are small, and a
// success body of this project's calls is far below the second.
const (
	maxErrorBody   = 1 << 20
	maxSuccessBody = 64 << 20
)

// RoundTrip sends req, retrying as described on transport.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var waited time.Duration
	failures, limits := 0, 0
	for attempt := 0; ; attempt++ {
		r, err := rewind(req, attempt)
		if err != nil {
			return nil, err
		}
		if !t.budget.take() {
			return nil, forge.ErrBudget // never sent, never retried
		}
		actx, cancel := context.WithTimeout(ctx, t.attemptTimeout)
		resp, err := t.base.RoundTrip(r.WithContext(actx))
		if err != nil {
			cancel()
			if !idempotent(req) || failures+1 >= serverAttempts || ctx.Err() != nil {
				return nil, err
			}
			failures++
			if err := t.sleep(ctx, backoff(failures)); err != nil {
				return nil, err
			}
			continue
		}
		resp.Body = capBody(resp, cancel, t.maxBody)
		wait, limited := rateLimitWait(resp, t.now(), limits)
		gql := false
		if !limited && isGraphQL(req) && resp.StatusCode == http.StatusOK {
			wait, limited = graphQLRateLimited(resp, t.now())
			gql = limited
		}
		// A rate limit means GitHub did not act: any method may be sent
		// again. A 5xx may come after GitHub acted (a comment created, then
		// the answer lost): only idempotent requests are sent again.
		retryable := limited || (resp.StatusCode >= 500 && idempotent(req) && failures+1 < serverAttempts)
		if !retryable || (req.Body != nil && req.GetBody == nil) {
			return forgetExhaustion(resp), nil
		}
		discard(resp)
		if limited {
			limits++
			if waited+wait > t.maxWait || limits > limitRetries {
				return nil, &RateLimitError{Status: resp.StatusCode, Reset: t.now().Add(wait), Wait: wait, Bound: t.maxWait, GraphQL: gql}
			}
			waited += wait
		} else {
			failures++
			wait = backoff(failures)
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// forgetExhaustion hides x-ratelimit-remaining 0 (and the reset) on an
// answer that is not a rate limit: go-github would otherwise refuse every later request
// until the reset without asking, where this transport waits within
// its bound.
func forgetExhaustion(resp *http.Response) *http.Response {
	if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		resp.Header.Del("X-Ratelimit-Remaining")
		resp.Header.Del("X-Ratelimit-Reset")
	}
	return resp
}

// rewind returns the request for the given attempt, with a fresh body
// after the first.
func rewind(req *http.Request, attempt int) (*http.Request, error) {
	if attempt == 0 || req.Body == nil || req.GetBody == nil {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, fmt.Errorf("rewind request body: %w", err)
	}
	r := req.Clone(req.Context())
	r.Body = body
	return r, nil
}

// idempotent reports whether sending req twice does what sending it once
// does: the read and replace methods, an edit (PATCH sets a body or a ref
// to a value), and a GraphQL query (the breaker sends no mutation).
func idempotent(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodPatch:
		return true
	case http.MethodPost:
		return isGraphQL(req)
	}
	return false
}

// isGraphQL reports whether req is a GraphQL query.
func isGraphQL(req *http.Request) bool {
	return req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/graphql")
}

// graphQLRateLimited reports whether a GraphQL answer (HTTP 200) is
// GitHub's primary rate limit — an error of type RATE_LIMITED (RATE_LIMIT
// has been seen too: yanyongyu/githubkit#271) — and how long to wait:
// Retry-After, else until x-ratelimit-reset, else a minute. The body is
// left readable.
func graphQLRateLimited(resp *http.Response, now time.Time) (time.Duration, bool) {
	data, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	if err != nil || !bytes.Contains(data, []byte("RATE_LIMIT")) {
		return 0, false
	}
	var body struct {
		Errors []struct {
			Type string `json:"type"`
		} `json:"errors"`
	}
	if json.Unmarshal(data, &body) != nil {
		return 0, false
	}
	for _, e := range body.Errors {
		if e.Type == "RATE_LIMITED" || e.Type == "RATE_LIMIT" {
			if wait, ok := headerWait(resp, now); ok {
				return wait, true
			}
			return defaultLimitWait, true
		}
	}
	return 0, false
}

// capBody bounds what may be read of a response (1 MiB of an error, max —
// maxSuccessBody when 0 — of a success) and ends the attempt's deadline
// when the body is closed.
func capBody(resp *http.Response, cancel context.CancelFunc, max int64) io.ReadCloser {
	limit := int64(maxSuccessBody)
	if max > 0 {
		limit = max
	}
	if resp.StatusCode >= 400 {
		limit = maxErrorBody
	}
	return &cappedBody{r: io.LimitReader(resp.Body, limit), c: resp.Body, cancel: cancel}
}

type cappedBody struct {
	r      io.Reader
	c      io.Closer
	cancel context.CancelFunc
}

// Read reads the body; at its end (or a failure) the attempt's deadline
// is released at once, since a caller may never close it (go-github's
// error path reads an error's body and keeps a copy).
func (b *cappedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil {
		b.cancel()
	}
	return n, err
}

func (b *cappedBody) Close() error {
	err := b.c.Close()
	b.cancel()
	return err
}

// backoff is the pause before the n-th retry of a failed request.
func backoff(n int) time.Duration { return time.Duration(n) * time.Second }

func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
}

// rateLimitWait reports whether resp is a rate limit — 429, or 403 with
// x-ratelimit-remaining 0 or a secondary-limit body — and how long to
// wait, as GitHub's "Handle rate limit errors appropriately" says:
// Retry-After when given; else, for the primary limit (remaining 0), until
// x-ratelimit-reset; else (a secondary limit) at least a minute, doubling
// with each retry already made (prior).
func rateLimitWait(resp *http.Response, now time.Time, prior int) (time.Duration, bool) {
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
	case resp.StatusCode != http.StatusForbidden:
		return 0, false
	case resp.Header.Get("X-Ratelimit-Remaining") == "0":
	case !secondaryBody(resp):
		return 0, false
	}
	if wait, ok := retryAfter(resp, now); ok {
		return wait, true
	}
	if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		if wait, ok := headerWait(resp, now); ok {
			return wait, true
		}
	}
	return defaultLimitWait << min(prior, 6), true
}

// retryAfter reads Retry-After, in seconds or as a date.
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if at, err := http.ParseTime(resp.Header.Get("Retry-After")); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// headerWait is Retry-After, else the time until x-ratelimit-reset.
func headerWait(resp *http.Response, now time.Time) (time.Duration, bool) {
	if wait, ok := retryAfter(resp, now); ok {
		return wait, true
	}
	if epoch, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
		// The reset second has begun but not ended: wait past it.
		return max(time.Unix(epoch, 0).Sub(now)+time.Second, time.Second), true
	}
	return 0, false
}

// secondaryBody reports whether a 403's body is a secondary rate limit,
// leaving the body readable.
func secondaryBody(resp *http.Response) bool {
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	if err != nil {
		return false
	}
	var body github_secondary_ratelimit.SecondaryRateLimitBody
	return json.Unmarshal(data, &body) == nil && body.IsSecondaryRateLimit()
}

func sleepContext(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
