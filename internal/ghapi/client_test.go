package ghapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

func TestNew_Config(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cfg      Config
		wantBase string
		wantErr  bool
	}{
		{"default api", Config{Owner: "o", Repo: "r"}, "https://api.github.com/", false},
		{"enterprise without slash", Config{Owner: "o", Repo: "r", APIURL: "https://ghe.example/api/v3"}, "https://ghe.example/api/v3/", false},
		{"enterprise with slash", Config{Owner: "o", Repo: "r", APIURL: "https://ghe.example/api/v3/"}, "https://ghe.example/api/v3/", false},
		{"missing owner", Config{Repo: "r"}, "", true},
		{"missing repo", Config{Owner: "o"}, "", true},
		{"not a url", Config{Owner: "o", Repo: "r", APIURL: "::"}, "", true},
		{"no scheme", Config{Owner: "o", Repo: "r", APIURL: "ghe.example/api/v3"}, "", true},
		{"other scheme", Config{Owner: "o", Repo: "r", APIURL: "ftp://ghe.example/"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := New(tt.cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("New() error = %v, want error %v", err, tt.wantErr)
			}
			if err == nil && c.gh.BaseURL.String() != tt.wantBase {
				t.Errorf("got base %q, want %q", c.gh.BaseURL, tt.wantBase)
			}
		})
	}
}

func TestClient_EnterprisePrefix(t *testing.T) {
	t.Parallel()
	srv := newFake(t, ghfake.WithPrefix("/api/v3"))
	srv.SetRef(checkpoint, shaA)
	c, _ := newClient(t, srv, func(cfg *Config) { cfg.APIURL = strings.TrimSuffix(srv.URL(), "/") })
	if !strings.HasSuffix(srv.URL(), "/api/v3/") {
		t.Fatalf("fake base %q lacks the prefix", srv.URL())
	}
	sha, found, err := c.GetRef(context.Background(), checkpoint)
	if err != nil || !found || sha != shaA {
		t.Errorf("GetRef = %q, %v, %v; want %q, true, nil", sha, found, err, shaA)
	}
}

func TestClient_TokenRedacted(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.AddPullRequest(forge.PullRequest{Number: 4, HeadSHA: shaA, Author: "agent"})
	srv.Fail(ghfake.Failure{Method: "POST", Status: 403,
		Body: `{"message":"token ` + testToken + ` may not write here"}`})
	c, _ := newClient(t, srv)
	_, err := c.CreateComment(context.Background(), 4, "x")
	if !errors.Is(err, forge.ErrForbidden) {
		t.Fatalf("got %v, want ErrForbidden", err)
	}
	if strings.Contains(err.Error(), testToken) || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("got error %q, want the token redacted", err)
	}
}

func TestClient_WrongTokenUnauthorized(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	c, _ := newClient(t, srv, func(cfg *Config) { cfg.Token = "ghp_wrong_token_value" })
	_, err := c.Permission(context.Background(), "alice")
	if !errors.Is(err, ErrUnauthorized) {
		t.Errorf("got %v, want ErrUnauthorized", err)
	}
	if strings.Contains(err.Error(), "ghp_wrong_token_value") {
		t.Errorf("got error %q, want no token", err)
	}
}

// headerCheck records the headers of the requests it passes on.
type headerCheck struct {
	base http.RoundTripper
	got  []http.Header
}

func (h *headerCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	h.got = append(h.got, r.Header.Clone())
	return h.base.RoundTrip(r)
}

func TestClient_HTTPClientAndUserAgent(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	check := &headerCheck{base: http.DefaultTransport}
	c, _ := newClient(t, srv, func(cfg *Config) {
		cfg.HTTPClient = &http.Client{Transport: check}
		cfg.UserAgent = "breaker-test/1"
	})
	if _, err := c.Identity(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(check.got) != 1 {
		t.Fatalf("got %d requests through the given transport, want 1", len(check.got))
	}
	if got, want := check.got[0].Get("User-Agent"), "breaker-test/1"; got != want {
		t.Errorf("got user agent %q, want %q", got, want)
	}
	if got, want := check.got[0].Get("Authorization"), "Bearer "+testToken; got != want {
		t.Errorf("got authorization %q, want %q", got, want)
	}
}
