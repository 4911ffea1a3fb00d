// Package ghapi is the breaker's adapter to the GitHub REST API, on
// go-github v60: a Client bound to one repository implements the Action's
// ports (internal/action: pull requests, the sticky comment, checkpoint and
// reset refs, permissions, rollback commits). It is the only package that
// imports go-github.
//
// The Client honours GITHUB_API_URL (Config.APIURL), so GitHub
// Enterprise Server's "https://HOST/api/v3" works. Its transport waits
// out rate limits — 429, and 403 with x-ratelimit-remaining 0 or a
// secondary-limit body — for Retry-After or until x-ratelimit-reset,
// within Config.MaxWait, and fails with a *RateLimitError naming the
// reset time beyond it. 5xx answers are tried three times with a short
// backoff. 401, 404 and a 403 that is not a rate limit are never
// retried; they come back wrapped with ErrUnauthorized, ErrNotFound and
// forge.ErrForbidden. The token never appears in an error's text.
//
// Package ghfake beside it is a stateful fake of the same API subset for
// tests.
package ghapi
