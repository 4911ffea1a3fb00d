package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/shurcooL/githubv4"

	"github.com/google/go-github/v60/github"
)

// DefaultAPIURL is the API of github.com, used when Config.APIURL is empty.
const DefaultAPIURL = "https://api.github.com/"

// DefaultMaxWait bounds the time spent waiting out rate limits for one
// request when Config.MaxWait is zero.
// A secondary limit without Retry-After asks for a minute, then longer:
// three minutes covers a minute and two.
const DefaultMaxWait = 3 * time.Minute

// MaxArtifactBytes is the largest results artifact the client downloads:
// the documented 256 MiB, above the 64 MiB bound of an API answer.
const MaxArtifactBytes = 256 << 20

// DefaultRequestTimeout bounds one attempt of a request when
// Config.RequestTimeout is zero.
const DefaultRequestTimeout = 30 * time.Second

// ErrUnauthorized is returned (wrapped) when GitHub answers 401: the
// token is missing, expired or wrong.
var ErrUnauthorized = errors.New("unauthorized")

// ErrNotFound is returned (wrapped) when GitHub answers 404 where the
// method has no "missing" result of its own.
var ErrNotFound = errors.New("not found")

// Config configures a Client.
type Config struct {
	Token string
	// APIURL is the REST API base, from GITHUB_API_URL; GitHub Enterprise
	// Server's is "https://HOST/api/v3". Empty means DefaultAPIURL.
	APIURL string
	// GraphQLURL is the GraphQL endpoint, from GITHUB_GRAPHQL_URL; empty
	// means GraphQLURL(APIURL).
	GraphQLURL string
	Owner      string
	Repo       string
	// HTTPClient supplies the base transport; nil means
	// http.DefaultTransport. Its Timeout is not used: see RequestTimeout.
	HTTPClient *http.Client
	// RequestTimeout bounds each attempt of a request (a rate-limit wait
	// is not an attempt); zero means DefaultRequestTimeout. A whole request,
	// waits and retries included, is bounded by MaxWait plus every
	// attempt's timeout, well below a job's time.
	RequestTimeout time.Duration
	// MaxWait bounds the rate-limit waits of one request; zero means
	// DefaultMaxWait. A longer limit fails with a *RateLimitError.
	MaxWait time.Duration
	// Sleep waits d or until ctx ends; nil means a real timer. Tests
	// inject one that records and returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used to read x-ratelimit-reset; nil means time.Now.
	Now       func() time.Time
	UserAgent string // empty means "greenlight-breaker"
	// Budget, when set, counts the client's API requests and bounds them
	// (`breaker replay` and `breaker stats`); nil counts nothing.
	Budget *Budget
}

// Client is the go-github adapter bound to one repository. It
// implements the Action's ports (internal/action) and is safe for concurrent use.
type Client struct {
	gh          *github.Client
	gql         *githubv4.Client
	blob        *http.Client // no token: for the URLs GitHub redirects downloads to
	owner, repo string
	token       string
}

// The Client serves every port of the Action.
var _ forge.Forge = (*Client)(nil)

// New returns a Client for cfg.Owner/cfg.Repo.
func New(cfg Config) (*Client, error) {
	if cfg.Owner == "" || cfg.Repo == "" {
		return nil, errors.New("ghapi: owner and repository are required")
	}
	base, err := apiURL(cfg.APIURL)
	if err != nil {
		return nil, err
	}
	t := &transport{base: http.DefaultTransport, maxWait: cfg.MaxWait, sleep: cfg.Sleep, now: cfg.Now, attemptTimeout: cfg.RequestTimeout, budget: cfg.Budget}
	if t.maxWait <= 0 {
		t.maxWait = DefaultMaxWait
	}
	if t.attemptTimeout <= 0 {
		t.attemptTimeout = DefaultRequestTimeout
	}
	if t.sleep == nil {
		t.sleep = sleepContext
	}
	if t.now == nil {
		t.now = time.Now
	}
	// No http.Client.Timeout: the transport bounds a whole request, each
	// attempt by its own deadline (reading its body included), at most
	// serverAttempts+limitRetries of them, and the waits between them by
	// maxWait. A client timeout over a RoundTripper of its own starts a
	// goroutine a request that only closing the body it returned stops,
	// and go-github never closes an error's body (CheckResponse reads it
	// and puts a copy in its place): in the App's long-lived server, every
	// 422 "Reference already exists" left one waiting minutes.
	hc := &http.Client{Transport: t}
	if cfg.HTTPClient != nil {
		hc.Jar = cfg.HTTPClient.Jar
		if cfg.HTTPClient.Transport != nil {
			t.base = cfg.HTTPClient.Transport
		}
	}
	c := &Client{owner: cfg.Owner, repo: cfg.Repo, token: cfg.Token}
	c.gh = github.NewClient(hc)
	if cfg.Token != "" {
		c.gh = c.gh.WithAuthToken(cfg.Token)
	}
	c.gh.BaseURL = base
	gqlURL := cfg.GraphQLURL
	if gqlURL == "" {
		gqlURL = GraphQLURL(cfg.APIURL)
	}
	c.gh.UserAgent = "greenlight-breaker"
	if cfg.UserAgent != "" {
		c.gh.UserAgent = cfg.UserAgent
	}
	gqlClient := &http.Client{Jar: hc.Jar, Transport: &authTransport{token: cfg.Token, userAgent: c.gh.UserAgent, base: t}}
	c.gql = githubv4.NewEnterpriseClient(gqlURL, gqlClient)
	// The archive download has its own bound, the documented artifact cap,
	// not the API's body cap (DownloadArtifact checks the caller's max too).
	blobT := *t
	blobT.maxBody = MaxArtifactBytes + 1
	blobT.budget = nil // the download host is not the API
	blobT.attemptTimeout = max(t.attemptTimeout, 5*time.Minute)
	c.blob = &http.Client{Transport: &blobT}
	return c, nil
}

// apiURL parses GITHUB_API_URL, giving it the trailing slash go-github
// needs.
func apiURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultAPIURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("ghapi: api url %q is not an http(s) url", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

// call runs one go-github request and maps its error.
func (c *Client) call(op string, fn func() (*github.Response, error)) (*github.Response, error) {
	resp, err := fn()
	return resp, c.wrap(op, resp, err)
}

// status is the HTTP status of resp, or 0.
func status(resp *github.Response) int {
	if resp == nil || resp.Response == nil {
		return 0
	}
	return resp.StatusCode
}

// wrap gives err its operation, a sentinel for the statuses callers
// branch on, and removes the token from its text.
func (c *Client) wrap(op string, resp *github.Response, err error) error {
	if err == nil {
		return nil
	}
	var limit *RateLimitError
	switch {
	case errors.As(err, &limit):
		err = fmt.Errorf("%s: %w", op, limit)
	case status(resp) == http.StatusUnauthorized:
		err = fmt.Errorf("%s: %w: %w", op, ErrUnauthorized, err)
	case status(resp) == http.StatusForbidden:
		if need := resp.Header.Get("X-Accepted-Github-Permissions"); need != "" {
			err = fmt.Errorf("%s: %w (the token needs the permission %s): %w", op, forge.ErrForbidden, need, err)
		} else {
			err = fmt.Errorf("%s: %w: %w", op, forge.ErrForbidden, err)
		}
	case status(resp) == http.StatusNotFound:
		err = fmt.Errorf("%s: %w: %w", op, ErrNotFound, err)
	default:
		err = fmt.Errorf("%s: %w", op, err)
	}
	return c.redact(err)
}

// redactedError hides the token in an error's text and keeps the chain
// for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func (c *Client) redact(err error) error {
	if err == nil || c.token == "" || !strings.Contains(err.Error(), c.token) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), c.token, "[redacted]"), err: err}
}

// message is GitHub's error message in err, or "".
func message(err error) string {
	var e *github.ErrorResponse
	if errors.As(err, &e) {
		return e.Message
	}
	return ""
}
