package ghfake

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

type comment struct {
	ID        int64
	Issue     int
	Author    string
	Body      string
	Minimized bool // hidden by a human; GraphQL's isMinimized (REST cannot tell)
}

type commit struct {
	Tree    string
	Message string
	Parents []string
}

// epoch is the fake's clock for timestamps in payloads.
var epoch = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// templates holds the real payload objects the responses are shaped
// from: the pull_request and comment objects of the webhook fixtures
// when they are present beside the repository, else minimal stand-ins.
var templates = sync.OnceValues(func() (pr, cm map[string]any) {
	pr = fixtureObject("pull_request/opened.payload.json", "pull_request")
	if pr == nil {
		pr = map[string]any{"title": "Fake pull request", "head": map[string]any{}, "base": map[string]any{}}
	}
	cm = fixtureObject("issue_comment/created.payload.json", "comment")
	if cm == nil {
		cm = map[string]any{"author_association": "NONE"}
	}
	return pr, cm
})

// fixtureObject reads one object of a webhook payload from the shared
// fixtures (../shared/fixtures beside the repository root).
func fixtureObject(file, key string) map[string]any {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return nil
	}
	root := filepath.Join(filepath.Dir(self), "..", "..", "..", "..", "shared", "fixtures", "webhooks")
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return nil
	}
	var payload map[string]json.RawMessage
	var obj map[string]any
	if json.Unmarshal(data, &payload) != nil || json.Unmarshal(payload[key], &obj) != nil {
		return nil
	}
	return obj
}

// clone deep-copies a JSON object.
func clone(m map[string]any) map[string]any {
	data, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

// set assigns v at a dotted path, creating objects on the way.
func set(m map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

func (s *Server) apiURL(format string, args ...any) string {
	return s.srv.URL + s.prefix + fmt.Sprintf(format, args...)
}

func (s *Server) repoJSON(m map[string]any, at, owner string) {
	set(m, at+".name", s.repo)
	set(m, at+".full_name", owner+"/"+s.repo)
	set(m, at+".owner", userJSON(owner))
	set(m, at+".fork", owner != s.owner)
}

func (s *Server) pullJSON(pr breaker.PullRequest) map[string]any {
	tmpl, _ := templates()
	m := clone(tmpl)
	headOwner := s.owner
	if pr.Fork {
		headOwner = pr.Author
	}
	m["number"] = pr.Number
	m["id"] = 100000 + pr.Number
	m["state"] = pr.State
	m["url"] = s.apiURL("/repos/%s/%s/pulls/%d", s.owner, s.repo, pr.Number)
	m["user"] = userJSON(pr.Author)
	set(m, "head.sha", pr.HeadSHA)
	set(m, "head.ref", pr.HeadRef)
	set(m, "head.label", headOwner+":"+pr.HeadRef)
	set(m, "head.user", userJSON(headOwner))
	s.repoJSON(m, "head.repo", headOwner)
	set(m, "base.ref", pr.BaseRef)
	if pr.BaseSHA != "" {
		set(m, "base.sha", pr.BaseSHA)
	}
	set(m, "base.label", s.owner+":"+pr.BaseRef)
	s.repoJSON(m, "base.repo", s.owner)
	return m
}

func (s *Server) commentJSON(c comment) map[string]any {
	_, tmpl := templates()
	m := clone(tmpl)
	m["id"] = c.ID
	m["url"] = s.apiURL("/repos/%s/%s/issues/comments/%d", s.owner, s.repo, c.ID)
	m["issue_url"] = s.apiURL("/repos/%s/%s/issues/%d", s.owner, s.repo, c.Issue)
	m["html_url"] = fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", s.owner, s.repo, c.Issue, c.ID)
	m["user"] = userJSON(c.Author)
	m["body"] = c.Body
	stamp := epoch.Add(time.Duration(c.ID) * time.Second).Format(time.RFC3339)
	m["created_at"], m["updated_at"] = stamp, stamp
	return m
}

func userJSON(login string) map[string]any {
	kind := "User"
	if strings.HasSuffix(login, "[bot]") {
		kind = "Bot"
	}
	return map[string]any{
		"login": login, "id": len(login) * 7919, "type": kind, "site_admin": false,
		"url": "https://api.github.com/users/" + login, "html_url": "https://github.com/" + login,
	}
}

func (s *Server) refJSON(ref, sha string) map[string]any {
	return map[string]any{
		"ref":     "refs/" + ref,
		"node_id": "MDA6RW50aXR5MQ==",
		"url":     s.apiURL("/repos/%s/%s/git/refs/%s", s.owner, s.repo, ref),
		"object": map[string]any{
			"sha": sha, "type": "commit",
			"url": s.apiURL("/repos/%s/%s/git/commits/%s", s.owner, s.repo, sha),
		},
	}
}

func (s *Server) commitJSON(sha string, c commit) map[string]any {
	parents := make([]map[string]any, 0, len(c.Parents))
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{"sha": p, "url": s.apiURL("/repos/%s/%s/git/commits/%s", s.owner, s.repo, p)})
	}
	who := map[string]any{"name": "Fake", "email": "fake@example.com", "date": epoch.Format(time.RFC3339)}
	return map[string]any{
		"sha":     sha,
		"url":     s.apiURL("/repos/%s/%s/git/commits/%s", s.owner, s.repo, sha),
		"message": c.Message, "author": who, "committer": who, "parents": parents,
		"tree":         map[string]any{"sha": c.Tree, "url": s.apiURL("/repos/%s/%s/git/trees/%s", s.owner, s.repo, c.Tree)},
		"verification": map[string]any{"verified": false, "reason": "unsigned"},
	}
}
