package ghapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fixtureDir holds octokit's recorded GitHub REST interactions.
var fixtureDir = filepath.Join("..", "..", "..", "shared", "fixtures", "github-api")

// recorded is one interaction of a fixture file.
type recorded struct {
	Method   string
	Path     string
	Body     json.RawMessage
	Status   int
	Response json.RawMessage
	Headers  map[string]any // strings, and a few numbers
}

func loadRecorded(t *testing.T, name string) []recorded {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("corpus: fixture %s missing (the ../shared corpus beside the repository); the project's own fixtures are tested without it", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []recorded
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// replay serves recorded answers by "METHOD /path?query" and records
// request bodies; any other request fails the test.
type replay struct {
	t      *testing.T
	srv    *httptest.Server
	routes map[string]recorded
	mu     sync.Mutex
	bodies map[string]string
	calls  int
}

func newReplay(t *testing.T, routes map[string]recorded) *replay {
	rp := &replay{t: t, routes: routes, bodies: map[string]string{}}
	rp.srv = httptest.NewServer(http.HandlerFunc(rp.serve))
	t.Cleanup(rp.srv.Close)
	return rp
}

func (rp *replay) serve(w http.ResponseWriter, r *http.Request) {
	key := r.Method + " " + r.URL.RequestURI()
	body, _ := io.ReadAll(r.Body)
	rp.mu.Lock()
	rp.calls++
	rp.bodies[key] = string(body)
	rp.mu.Unlock()
	rec, ok := rp.routes[key]
	if !ok {
		rp.t.Errorf("replay: unexpected request %s", key)
		http.NotFound(w, r)
		return
	}
	for _, h := range []string{"content-type", "link", "x-ratelimit-limit", "x-ratelimit-remaining"} {
		if v, ok := rec.Headers[h]; ok {
			w.Header().Set(h, strings.ReplaceAll(fmt.Sprint(v), "https://api.github.com", rp.srv.URL))
		}
	}
	w.WriteHeader(rec.Status)
	if rec.Status != http.StatusNoContent {
		_, _ = w.Write(rec.Response)
	}
}

func (rp *replay) client(t *testing.T, owner, repo string) *Client {
	c, err := New(Config{Token: testToken, APIURL: rp.srv.URL, Owner: owner, Repo: repo, Sleep: (&sleeper{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// refIn picks one ref out of a recorded "list refs" answer, as GitHub
// answers GET git/ref/{ref}.
func refIn(t *testing.T, list recorded, ref string) recorded {
	var refs []map[string]any
	if err := json.Unmarshal(list.Response, &refs); err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		if r["ref"] == ref {
			one, _ := json.Marshal(r)
			list.Response = one
			return list
		}
	}
	t.Fatalf("fixture has no %s", ref)
	return recorded{}
}
