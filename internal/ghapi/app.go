package ghapi

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-github/v60/github"
)

// App is the breaker's GitHub App: it signs the App's JSON Web Token with
// the App's private key (golang-jwt, RS256, as GitHub documents for
// "Generating a JSON Web Token (JWT) for a GitHub App": iat 60 seconds in
// the past, exp at most 10 minutes on, iss the App's id) and trades it for
// installation access tokens (POST /app/installations/{id}/access_tokens),
// each kept until shortly before it expires. Safe for concurrent use.
type App struct {
	id  int64
	key *rsa.PrivateKey
	gh  *github.Client
	now func() time.Time

	mu     sync.Mutex
	tokens map[int64]installationToken
}

type installationToken struct {
	token   string
	expires time.Time
}

// tokenMargin is how long before its expiry an installation token is
// minted anew: a run that starts with it has that long to finish its calls.
const tokenMargin = 10 * time.Minute

// NewApp binds the App's id and key to the REST API at rawAPIURL (""
// = api.github.com); now is the clock (nil = time.Now).
func NewApp(id int64, key *rsa.PrivateKey, rawAPIURL string, now func() time.Time) (*App, error) {
	if id <= 0 || key == nil {
		return nil, errors.New("ghapi: an App needs its id and private key")
	}
	base, err := apiURL(rawAPIURL)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	a := &App{id: id, key: key, now: now, tokens: map[int64]installationToken{}}
	// No client timeout (see New): InstallationToken bounds each request.
	hc := &http.Client{Transport: &appTransport{app: a, base: http.DefaultTransport}}
	a.gh = github.NewClient(hc)
	a.gh.BaseURL = base
	a.gh.UserAgent = "greenlight-breaker"
	return a, nil
}

// JWT is the App's token for the /app endpoints, valid for nine minutes.
func (a *App) JWT() (string, error) {
	now := a.now()
	claims := jwt.RegisteredClaims{
		IssuedAt:  jwt.NewNumericDate(now.Add(-60 * time.Second)),
		ExpiresAt: jwt.NewNumericDate(now.Add(9 * time.Minute)),
		Issuer:    fmt.Sprint(a.id),
	}
	return jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(a.key)
}

// InstallationToken is an access token of the installation, minted when
// none is held or the one held expires within tokenMargin.
func (a *App) InstallationToken(ctx context.Context, installation int64) (string, error) {
	a.mu.Lock()
	held, ok := a.tokens[installation]
	a.mu.Unlock()
	if ok && a.now().Add(tokenMargin).Before(held.expires) {
		return held.token, nil
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultRequestTimeout)
	defer cancel()
	tok, _, err := a.gh.Apps.CreateInstallationToken(ctx, installation, &github.InstallationTokenOptions{})
	if err != nil {
		return "", fmt.Errorf("mint an access token of installation %d: %w", installation, err)
	}
	if tok.GetToken() == "" {
		return "", fmt.Errorf("mint an access token of installation %d: GitHub answered without a token", installation)
	}
	held = installationToken{token: tok.GetToken(), expires: tok.GetExpiresAt().Time}
	a.mu.Lock()
	a.tokens[installation] = held
	a.mu.Unlock()
	return held.token, nil
}

// appTransport signs each request with a fresh App JWT.
type appTransport struct {
	app  *App
	base http.RoundTripper
}

func (t *appTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	token, err := t.app.JWT()
	if err != nil {
		return nil, fmt.Errorf("sign the App's token: %w", err)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+token)
	return t.base.RoundTrip(req)
}

// ReadFile is the file at path of the repository at ref, at most max
// bytes; found is false when the repository holds no such file there.
func (c *Client) ReadFile(ctx context.Context, path, ref string, max int) (data []byte, found bool, err error) {
	file, _, resp, err := c.gh.Repositories.GetContents(ctx, c.owner, c.repo, path, &github.RepositoryContentGetOptions{Ref: ref})
	if status(resp) == http.StatusNotFound {
		return nil, false, nil
	}
	if err = c.wrap("read "+path, resp, err); err != nil {
		return nil, false, err
	}
	if file == nil {
		return nil, false, fmt.Errorf("read %s: it is a directory, not a file", path)
	}
	if file.GetSize() > max {
		return nil, true, fmt.Errorf("read %s: %d bytes, over the %d allowed", path, file.GetSize(), max)
	}
	text, err := file.GetContent()
	if err != nil {
		return nil, true, fmt.Errorf("read %s: %w", path, err)
	}
	return []byte(text), true, nil
}

// maxRunJSON bounds a workflow run's JSON (GitHub's are a few kilobytes).
const maxRunJSON = 1 << 20

// WorkflowRun is workflow run id as GitHub's REST API gives it ("Get a
// workflow run", GET /repos/{owner}/{repo}/actions/runs/{run_id}): the
// workflow-run object a workflow_run webhook's payload carries as its
// workflow_run, kept raw so the App can judge that run as if its
// completed delivery had come.
func (c *Client) WorkflowRun(ctx context.Context, id int64) (json.RawMessage, error) {
	op := fmt.Sprintf("read workflow run %d", id)
	var raw json.RawMessage
	_, err := c.call(op, func() (*github.Response, error) {
		req, err := c.gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/actions/runs/%d", url.PathEscape(c.owner), url.PathEscape(c.repo), id), nil)
		if err != nil {
			return nil, err
		}
		return c.gh.Do(ctx, req, &raw)
	})
	if err != nil {
		return nil, err
	}
	if len(raw) > maxRunJSON {
		return nil, fmt.Errorf("%s: %d bytes, over the %d allowed", op, len(raw), maxRunJSON)
	}
	return raw, nil
}
