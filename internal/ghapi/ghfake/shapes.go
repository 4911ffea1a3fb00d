package ghfake

import (
	"embed"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/forge"
)

type comment struct {
	ID        int64
	Issue     int
	Author    string
	Body      string
	Minimized bool // hidden by a human; GraphQL's isMinimized (REST cannot tell)
	// Edits counts the changes of its body: GitHub moves updated_at past
	// created_at on each ("Update an issue comment").
	Edits int
	// Created is its created_at when a test set it (SetCommentTime);
	// otherwise a second after the comment before it.
	Created time.Time
}

type commit struct {
	Tree    string
	Message string
	Parents []string
}

// epoch is the fake's clock for timestamps in payloads.
var epoch = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// restTemplates are the project's own REST objects, one per schema of
// GitHub's OpenAPI description the fake answers with (testdata/rest,
// named after the schema: pull-request.json is #/components/schemas/
// pull-request). Each holds every field the schema requires; the fake
// sets the fields that mean something. The contract test checks every
// answer against the description itself.
//
//go:embed testdata/rest/*.json
var restTemplates embed.FS

// template returns a fresh copy of the named schema's object.
func template(schema string) map[string]any {
	data, err := restTemplates.ReadFile("testdata/rest/" + schema + ".json")
	if err != nil {
		panic("ghfake: no REST template " + schema) // a bug of the fake
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		panic("ghfake: REST template " + schema + ": " + err.Error())
	}
	return m
}

// SetPath assigns v at a dotted path of a JSON object (a webhook payload,
// an answer's template), creating objects on the way.
func SetPath(m map[string]any, path string, v any) {
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
	SetPath(m, at+".name", s.repo)
	SetPath(m, at+".full_name", owner+"/"+s.repo)
	SetPath(m, at+".owner", userJSON(owner))
	SetPath(m, at+".fork", owner != s.owner)
	SetPath(m, at+".url", s.apiURL("/repos/%s/%s", owner, s.repo))
	SetPath(m, at+".html_url", "https://github.com/"+owner+"/"+s.repo)
}

// pullJSON is a pull request as GET pulls/{n} answers it (schema
// pull-request); simple is the lists' form (pull-request-simple).
func (s *Server) pullJSON(pr forge.PullRequest, simple bool) map[string]any {
	m := template("pull-request")
	if simple {
		m = template("pull-request-simple")
	}
	headOwner := s.owner
	if pr.Fork {
		headOwner = pr.Author
	}
	m["number"] = pr.Number
	m["id"] = 100000 + pr.Number
	m["node_id"] = pullNodeID(pr.Number)
	m["draft"] = pr.Draft
	m["state"] = pr.State
	m["title"] = "Pull request " + strconv.Itoa(pr.Number)
	m["url"] = s.apiURL("/repos/%s/%s/pulls/%d", s.owner, s.repo, pr.Number)
	m["html_url"] = fmt.Sprintf("https://github.com/%s/%s/pull/%d", s.owner, s.repo, pr.Number)
	m["user"] = userJSON(pr.Author)
	SetPath(m, "head.sha", pr.HeadSHA)
	SetPath(m, "head.ref", pr.HeadRef)
	SetPath(m, "head.label", headOwner+":"+pr.HeadRef)
	SetPath(m, "head.user", userJSON(headOwner))
	s.repoJSON(m, "head.repo", headOwner)
	SetPath(m, "base.ref", pr.BaseRef)
	SetPath(m, "base.sha", pr.BaseSHA)
	if pr.BaseSHA == "" {
		SetPath(m, "base.sha", strings.Repeat("0", 40))
	}
	SetPath(m, "base.label", s.owner+":"+pr.BaseRef)
	SetPath(m, "base.user", userJSON(s.owner))
	s.repoJSON(m, "base.repo", s.owner)
	labels := make([]any, 0, len(pr.Labels))
	for _, l := range pr.Labels {
		labels = append(labels, s.labelJSON(l))
	}
	m["labels"] = labels
	assignees := make([]any, 0, len(pr.Assignees))
	for _, a := range pr.Assignees {
		assignees = append(assignees, userJSON(a))
	}
	m["assignees"] = assignees
	m["assignee"] = nil
	if len(assignees) > 0 {
		m["assignee"] = assignees[0]
	}
	return m
}

// issueJSON is a pull request as the issues API answers for it (schema
// issue: its required fields, and pull_request to say what it is).
func (s *Server) issueJSON(pr forge.PullRequest) map[string]any {
	base := s.apiURL("/repos/%s/%s", s.owner, s.repo)
	issue := fmt.Sprintf("%s/issues/%d", base, pr.Number)
	labels := make([]any, 0, len(pr.Labels))
	for _, l := range pr.Labels {
		labels = append(labels, s.labelJSON(l))
	}
	assignees := make([]any, 0, len(pr.Assignees))
	for _, a := range pr.Assignees {
		assignees = append(assignees, userJSON(a))
	}
	var assignee any
	if len(assignees) > 0 {
		assignee = assignees[0]
	}
	at := epoch.Format(time.RFC3339)
	return map[string]any{
		"id": 200000 + pr.Number, "node_id": "I_" + strconv.Itoa(pr.Number), "url": issue, "repository_url": base,
		"labels_url": issue + "/labels{/name}", "comments_url": issue + "/comments", "events_url": issue + "/events",
		"html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", s.owner, s.repo, pr.Number),
		"number":   pr.Number, "state": pr.State, "title": "Pull request " + strconv.Itoa(pr.Number), "user": userJSON(pr.Author),
		"labels": labels, "assignee": assignee, "assignees": assignees, "milestone": nil, "locked": false,
		"comments": 0, "closed_at": nil, "created_at": at, "updated_at": at, "author_association": "NONE",
		"pull_request": map[string]any{"url": fmt.Sprintf("%s/pulls/%d", base, pr.Number), "html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", s.owner, s.repo, pr.Number),
			"diff_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d.diff", s.owner, s.repo, pr.Number), "patch_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d.patch", s.owner, s.repo, pr.Number)},
	}
}

// pullNodeID is pull request number's GraphQL id.
func pullNodeID(number int) string { return "PR_kwDO" + strconv.Itoa(number) }

// labelJSON is a label as the issues API answers it (schema label).
func (s *Server) labelJSON(name string) map[string]any {
	id := int64(0)
	for _, r := range name {
		id = id*31 + int64(r)
	}
	id = id&0xffffff + 1
	return map[string]any{"id": id, "node_id": "LA_" + strconv.FormatInt(id, 36),
		"url":  s.apiURL("/repos/%s/%s/labels/%s", s.owner, s.repo, url.PathEscape(name)),
		"name": name, "description": "", "color": "d73a4a", "default": false}
}

func (s *Server) commentJSON(c comment) map[string]any {
	m := template("issue-comment")
	m["id"] = c.ID
	m["node_id"] = "IC_" + strconv.FormatInt(c.ID, 36)
	m["url"] = s.apiURL("/repos/%s/%s/issues/comments/%d", s.owner, s.repo, c.ID)
	m["issue_url"] = s.apiURL("/repos/%s/%s/issues/%d", s.owner, s.repo, c.Issue)
	m["html_url"] = fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", s.owner, s.repo, c.Issue, c.ID)
	m["user"] = userJSON(c.Author)
	m["body"] = c.Body
	m["author_association"] = "NONE"
	created := epoch.Add(time.Duration(c.ID-firstCommentID) * time.Second)
	if !c.Created.IsZero() {
		created = c.Created.UTC()
	}
	m["created_at"] = created.Format(time.RFC3339)
	m["updated_at"] = created.Add(time.Duration(c.Edits) * time.Minute).Format(time.RFC3339)
	return m
}

// userJSON is a user or bot as REST gives it (schema simple-user): a
// bot's login carries "[bot]" and its type is Bot.
func userJSON(login string) map[string]any {
	m := template("simple-user")
	kind := "User"
	if strings.HasSuffix(login, "[bot]") {
		kind = "Bot"
	}
	m["login"], m["id"], m["type"], m["site_admin"] = login, len(login)*7919, kind, false
	m["node_id"] = "U_" + login
	m["url"] = "https://api.github.com/users/" + login
	m["html_url"] = "https://github.com/" + login
	return m
}

func (s *Server) refJSON(ref, sha string) map[string]any {
	m := template("git-ref")
	m["ref"] = "refs/" + ref
	m["node_id"] = "REF_" + ref
	m["url"] = s.apiURL("/repos/%s/%s/git/refs/%s", s.owner, s.repo, ref)
	m["object"] = map[string]any{"sha": sha, "type": "commit", "url": s.apiURL("/repos/%s/%s/git/commits/%s", s.owner, s.repo, sha)}
	return m
}

func (s *Server) commitJSON(sha string, c commit) map[string]any {
	parents := make([]any, 0, len(c.Parents))
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{"sha": p, "url": s.apiURL("/repos/%s/%s/git/commits/%s", s.owner, s.repo, p),
			"html_url": fmt.Sprintf("https://github.com/%s/%s/commit/%s", s.owner, s.repo, p)})
	}
	who := map[string]any{"name": "Fake", "email": "fake@example.com", "date": epoch.Format(time.RFC3339)}
	m := template("git-commit")
	m["sha"], m["node_id"] = sha, "C_"+sha
	m["url"] = s.apiURL("/repos/%s/%s/git/commits/%s", s.owner, s.repo, sha)
	m["html_url"] = fmt.Sprintf("https://github.com/%s/%s/commit/%s", s.owner, s.repo, sha)
	m["message"], m["author"], m["committer"], m["parents"] = c.Message, who, who, parents
	m["tree"] = map[string]any{"sha": c.Tree, "url": s.apiURL("/repos/%s/%s/git/trees/%s", s.owner, s.repo, c.Tree)}
	m["verification"] = map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}
	return m
}
