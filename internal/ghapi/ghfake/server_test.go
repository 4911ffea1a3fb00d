package ghfake_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

type answer struct {
	Status int
	Header http.Header
	Body   map[string]any
	List   []map[string]any
}

func do(t *testing.T, method, url, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	a := answer{Status: resp.StatusCode, Header: resp.Header}
	if strings.HasPrefix(string(data), "[") {
		_ = json.Unmarshal(data, &a.List)
	} else if len(data) > 0 {
		_ = json.Unmarshal(data, &a.Body)
	}
	return a
}

func TestServer_Refs(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t)
	base := srv.URL() + "repos/Codertocat/Hello-World/git/"
	sha1, sha2 := strings.Repeat("a", 40), strings.Repeat("b", 40)
	steps := []struct {
		method, path, body string
		want               int
	}{
		{"GET", "ref/tags/greenlight/checkpoint/S-3", "", 404},
		{"POST", "refs", `{"ref":"refs/tags/greenlight/checkpoint/S-3","sha":"` + sha1 + `"}`, 201},
		{"POST", "refs", `{"ref":"refs/tags/greenlight/checkpoint/S-3","sha":"` + sha2 + `"}`, 422},
		{"GET", "ref/tags/greenlight/checkpoint/S-3", "", 200},
		{"PATCH", "refs/tags/greenlight/checkpoint/S-3", `{"sha":"` + sha2 + `","force":true}`, 200},
		{"DELETE", "refs/tags/greenlight/checkpoint/S-3", "", 204},
		{"DELETE", "refs/tags/greenlight/checkpoint/S-3", "", 422},
		{"PATCH", "refs/tags/greenlight/checkpoint/S-3", `{"sha":"` + sha2 + `"}`, 422},
	}
	for i, st := range steps {
		if got := do(t, st.method, base+st.path, st.body).Status; got != st.want {
			t.Errorf("step %d %s %s: got status %d, want %d", i, st.method, st.path, got, st.want)
		}
	}
	if _, ok := srv.Ref("tags/greenlight/checkpoint/S-3"); ok {
		t.Errorf("got ref present after delete, want absent")
	}
	if got, want := srv.CallCount(), len(steps); got != want {
		t.Errorf("got %d calls, want %d", got, want)
	}
}

func TestServer_RefBodies(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t)
	sha := strings.Repeat("c", 40)
	srv.SetRef("refs/heads/main", sha)
	got := do(t, "GET", srv.URL()+"repos/Codertocat/Hello-World/git/ref/heads/main", "")
	if diff := cmp.Diff(map[string]any{"ref": "refs/heads/main", "sha": sha},
		map[string]any{"ref": got.Body["ref"], "sha": got.Body["object"].(map[string]any)["sha"]}); diff != "" {
		t.Errorf("ref body (-want +got):\n%s", diff)
	}
	dup := do(t, "POST", srv.URL()+"repos/Codertocat/Hello-World/git/refs", `{"ref":"refs/heads/main","sha":"`+sha+`"}`)
	if got, want := dup.Body["message"], "Reference already exists"; got != want {
		t.Errorf("got message %q, want %q", got, want)
	}
}

func TestServer_FastForward(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t)
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	tree := strings.Repeat("e", 40)
	srv.AddCommit(a, tree, "a")
	srv.AddCommit(b, tree, "b", a)
	srv.AddCommit(c, tree, "c")
	srv.SetRef("heads/x", a)
	url := srv.URL() + "repos/Codertocat/Hello-World/git/refs/heads/x"
	if got := do(t, "PATCH", url, `{"sha":"`+c+`"}`).Status; got != 422 {
		t.Errorf("non fast-forward: got %d, want 422", got)
	}
	if got := do(t, "PATCH", url, `{"sha":"`+b+`"}`).Status; got != 200 {
		t.Errorf("fast-forward: got %d, want 200", got)
	}
}

func TestServer_CommentsPagination(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t, ghfake.WithMaxPerPage(2))
	srv.AddPullRequest(forge.PullRequest{Number: 7, HeadSHA: strings.Repeat("d", 40), Author: "agent"})
	for i := range 5 {
		srv.AddComment(7, "alice", fmt.Sprintf("c%d", i))
	}
	url := srv.URL() + "repos/Codertocat/Hello-World/issues/7/comments?per_page=100"
	var bodies []string
	for pages := 0; url != "" && pages < 10; pages++ {
		a := do(t, "GET", url, "")
		for _, c := range a.List {
			bodies = append(bodies, c["body"].(string))
		}
		url = nextLink(a.Header.Get("Link"))
	}
	if diff := cmp.Diff([]string{"c0", "c1", "c2", "c3", "c4"}, bodies); diff != "" {
		t.Errorf("bodies (-want +got):\n%s", diff)
	}
	if got, want := srv.CallCount(), 3; got != want {
		t.Errorf("got %d calls, want %d", got, want)
	}
}

func nextLink(h string) string {
	for _, part := range strings.Split(h, ",") {
		if u, rest, ok := strings.Cut(strings.TrimSpace(part), ">;"); ok && strings.Contains(rest, `rel="next"`) {
			return strings.TrimPrefix(u, "<")
		}
	}
	return ""
}

func TestServer_CommentLifecycle(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t, ghfake.WithPrefix("/api/v3"))
	srv.AddPullRequest(forge.PullRequest{Number: 3, Author: "agent"})
	human := srv.AddComment(3, "alice", "hi")
	created := do(t, "POST", srv.URL()+"repos/Codertocat/Hello-World/issues/3/comments", `{"body":"one"}`)
	id := int64(created.Body["id"].(float64))
	do(t, "PATCH", fmt.Sprintf("%srepos/Codertocat/Hello-World/issues/comments/%d", srv.URL(), id), `{"body":"two"}`)
	want := []forge.Comment{{ID: human, Author: "alice", Body: "hi"}, {ID: id, Author: ghfake.BotLogin, Body: "two"}}
	if diff := cmp.Diff(want, srv.Comments(3)); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
	if got, want := srv.Calls()[1].String(), fmt.Sprintf("PATCH /repos/Codertocat/Hello-World/issues/comments/%d", id); got != want {
		t.Errorf("got call %q, want %q", got, want)
	}
}

func TestServer_UserAndPermission(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t)
	if got := do(t, "GET", srv.URL()+"user", "").Status; got != 403 {
		t.Errorf("GET /user before SetUser: got %d, want 403", got)
	}
	srv.SetUser("breaker-bot")
	if got := do(t, "GET", srv.URL()+"user", "").Body["login"]; got != "breaker-bot" {
		t.Errorf("GET /user: got login %v, want breaker-bot", got)
	}
	srv.SetPermission("Mia", "maintain")
	got := do(t, "GET", srv.URL()+"repos/Codertocat/Hello-World/collaborators/mia/permission", "").Body
	if got["permission"] != "write" || got["role_name"] != "maintain" {
		t.Errorf("got permission %v role %v, want write maintain", got["permission"], got["role_name"])
	}
}

func TestServer_FailNext(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t, ghfake.WithToken("s3cret"))
	srv.FailNext("GET", "/repos/*/*/git/ref/**", 429, map[string]string{"Retry-After": "7"})
	url := srv.URL() + "repos/Codertocat/Hello-World/git/ref/tags/a/b"
	first := do(t, "GET", url, "")
	if first.Status != 429 || first.Header.Get("Retry-After") != "7" {
		t.Errorf("got %d Retry-After %q, want 429 and 7", first.Status, first.Header.Get("Retry-After"))
	}
	if got := do(t, "GET", url, "").Status; got != 401 {
		t.Errorf("without token: got %d, want 401", got)
	}
}

// recorder captures Errorf so the unknown-route check can be observed.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestServer_UnknownRouteFailsTest(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	srv := ghfake.New(rec)
	for _, c := range []struct{ method, path string }{
		{"GET", "repos/Codertocat/Hello-World/labels"},
		{"PUT", "repos/Codertocat/Hello-World/git/refs/heads/x"},
		{"GET", "repos/someone/else/pulls/1"},
	} {
		if got := do(t, c.method, srv.URL()+c.path, "").Status; got != 404 {
			t.Errorf("%s %s: got %d, want 404", c.method, c.path, got)
		}
	}
	if got, want := len(rec.errors), 3; got != want {
		t.Errorf("got %d test errors %q, want %d", got, rec.errors, want)
	}
}

func TestServer_PullShape(t *testing.T) {
	t.Parallel()
	srv := ghfake.New(t)
	sha := strings.Repeat("f", 40)
	srv.AddPullRequest(forge.PullRequest{Number: 9, HeadSHA: sha, HeadRef: "patch-1", BaseRef: "main", Author: "stranger", Fork: true})
	pr := do(t, "GET", srv.URL()+"repos/Codertocat/Hello-World/pulls/9", "").Body
	head, base := pr["head"].(map[string]any), pr["base"].(map[string]any)
	got := []any{pr["number"], pr["state"], head["sha"], head["ref"], head["label"],
		head["repo"].(map[string]any)["full_name"], base["repo"].(map[string]any)["full_name"], base["ref"]}
	want := []any{9.0, "open", sha, "patch-1", "stranger:patch-1", "stranger/Hello-World", "Codertocat/Hello-World", "main"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pull (-want +got):\n%s", diff)
	}
	// A fork's pull request is not listed by its head commit (GitHub lists
	// the base repository's branches' pull requests there), only by head.
	if list := do(t, "GET", srv.URL()+"repos/Codertocat/Hello-World/commits/"+sha+"/pulls", "").List; len(list) != 0 {
		t.Errorf("got %d pulls for a fork's commit, want none, as GitHub answers", len(list))
	}
	list := do(t, "GET", srv.URL()+"repos/Codertocat/Hello-World/pulls?state=open&head=stranger:patch-1", "").List
	if len(list) != 1 || list[0]["number"] != 9.0 {
		t.Errorf("got %d pulls from stranger:patch-1, want #9 alone", len(list))
	}
	if list := do(t, "GET", srv.URL()+"repos/Codertocat/Hello-World/pulls?head=Codertocat:patch-1", "").List; len(list) != 0 {
		t.Errorf("got %d pulls from Codertocat:patch-1, want none: the head is the fork's", len(list))
	}
	if got := pr["title"]; got != "Pull request 9" {
		t.Errorf("got title %q, want the fake's", got)
	}

}
