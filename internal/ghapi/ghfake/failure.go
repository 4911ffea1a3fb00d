package ghfake

import (
	"net/http"
	"strings"
)

// Failure is an injected error response. It answers the next request
// whose method and path match, Times times (once when zero), before the
// request reaches the fake's state.
type Failure struct {
	// Method matches the request method; "" matches any.
	Method string
	// Path is a pattern over the path without the API prefix: segments
	// are compared literally, "*" matches one segment and a final "**"
	// matches the rest, e.g. "/repos/*/*/git/refs/**". "" matches any.
	Path   string
	Status int
	// Header is added to the response, e.g. "Retry-After": "3".
	Header map[string]string
	// Body is the JSON body; "" gives the body GitHub sends for Status.
	Body  string
	Times int
	// After carries the request out first, then answers with the failure:
	// a write whose answer was lost.
	After bool
}

// Common bodies GitHub sends with error statuses.
const (
	// BodyForbidden is GitHub's answer to a token without the permission,
	// e.g. a fork pull request's read-only GITHUB_TOKEN.
	BodyForbidden = `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest"}`
	// BodyRateLimit is the body of a primary rate limit (403 with
	// x-ratelimit-remaining: 0).
	BodyRateLimit = `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`
	// BodySecondaryRateLimit is the body of a secondary rate limit.
	BodySecondaryRateLimit = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/resources-in-the-rest-api#secondary-rate-limits"}`
	// BodyServerError is the body of a 5xx answer.
	BodyServerError = `{"message":"Server Error"}`
)

// FailNext makes the next request matching method and pathPattern (see
// Failure.Path) answer status with the given headers and GitHub's usual
// body for that status: BodyForbidden for 403 (BodyRateLimit when
// headers has x-ratelimit-remaining "0"), BodySecondaryRateLimit for 429,
// BodyServerError for 5xx.
func (s *Server) FailNext(method, pathPattern string, status int, headers map[string]string) {
	s.Fail(Failure{Method: method, Path: pathPattern, Status: status, Header: headers})
}

// Fail queues an injected failure. Failures are matched in the order
// they were queued.
func (s *Server) Fail(f Failure) {
	if f.Times <= 0 {
		f.Times = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, f)
}

// takeFailure consumes the first failure matching the request. The
// caller holds s.mu.
func (s *Server) takeFailure(method, path string) (Failure, bool) {
	for i, f := range s.failures {
		if (f.Method != "" && !strings.EqualFold(f.Method, method)) || !matchPath(f.Path, path) {
			continue
		}
		s.failures[i].Times--
		if s.failures[i].Times == 0 {
			s.failures = append(s.failures[:i], s.failures[i+1:]...)
		}
		return f, true
	}
	return Failure{}, false
}

func (f Failure) write(w http.ResponseWriter) {
	for k, v := range f.Header {
		w.Header().Set(k, v)
	}
	body := f.Body
	if body == "" {
		body = defaultBody(f.Status, w.Header().Get("X-Ratelimit-Remaining"))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(body))
}

func defaultBody(status int, remaining string) string {
	switch {
	case status == http.StatusForbidden && remaining == "0":
		return BodyRateLimit
	case status == http.StatusForbidden:
		return BodyForbidden
	case status == http.StatusTooManyRequests:
		return BodySecondaryRateLimit
	case status >= 500:
		return BodyServerError
	default:
		return `{"message":"` + http.StatusText(status) + `"}`
	}
}

// matchPath reports whether path matches pattern (see Failure.Path).
func matchPath(pattern, path string) bool {
	if pattern == "" {
		return true
	}
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	xs := strings.Split(strings.Trim(path, "/"), "/")
	for i, p := range ps {
		if p == "**" && i == len(ps)-1 {
			return true
		}
		if i >= len(xs) || (p != "*" && p != xs[i]) {
			return false
		}
	}
	return len(ps) == len(xs)
}
