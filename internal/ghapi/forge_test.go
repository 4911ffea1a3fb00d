package ghapi

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

func TestClient_Identity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, user, want string
	}{
		{"github token cannot read user", "", ""},
		{"personal token", "breaker-bot", "breaker-bot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newFake(t)
			srv.SetUser(tt.user)
			c, _ := newClient(t, srv)
			got, err := c.Identity(context.Background())
			if err != nil || got != tt.want {
				t.Errorf("Identity() = %q, %v; want %q, nil", got, err, tt.want)
			}
		})
	}
}

func TestClient_PullRequest(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	own := forge.PullRequest{Number: 7, State: "open", HeadSHA: shaA, HeadRef: "agent/s-3", BaseRef: "main", BaseSHA: shaB, Author: "agent"}
	fork := forge.PullRequest{Number: 8, State: "closed", HeadSHA: shaB, HeadRef: "patch", BaseRef: "main", BaseSHA: shaA, Author: "stranger", Fork: true}
	srv.AddPullRequest(own)
	srv.AddPullRequest(fork)
	c, _ := newClient(t, srv)
	for _, want := range []forge.PullRequest{own, fork} {
		got, err := c.PullRequest(context.Background(), want.Number)
		if err != nil {
			t.Fatalf("PullRequest(%d): %v", want.Number, err)
		}
		if got.NodeID == "" {
			t.Errorf("PullRequest(%d) has no GraphQL id", want.Number)
		}
		got.NodeID = ""
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("PullRequest(%d) (-want +got):\n%s", want.Number, diff)
		}
	}
	_, err := c.PullRequest(context.Background(), 99)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("PullRequest(99): got %v, want ErrNotFound", err)
	}
}

func TestClient_FindPullRequest(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.AddPullRequest(forge.PullRequest{Number: 1, State: "closed", HeadSHA: shaA, HeadRef: "old", Author: "agent"})
	srv.AddPullRequest(forge.PullRequest{Number: 2, HeadSHA: shaA, HeadRef: "agent/s-3", BaseRef: "main", Author: "agent"})
	srv.AddPullRequest(forge.PullRequest{Number: 3, State: "closed", HeadSHA: shaB, Author: "agent"})
	c, _ := newClient(t, srv)
	tests := []struct {
		sha       string
		want      int
		wantFound bool
	}{
		{shaA, 2, true},
		{shaB, 0, false},
		{shaC, 0, false},
	}
	for _, tt := range tests {
		pr, found, err := c.FindPullRequest(context.Background(), tt.sha)
		if err != nil || found != tt.wantFound || pr.Number != tt.want {
			t.Errorf("FindPullRequest(%.7s) = #%d, %v, %v; want #%d, %v, nil", tt.sha, pr.Number, found, err, tt.want, tt.wantFound)
		}
	}
}

func TestClient_ListComments_EveryPage(t *testing.T) {
	t.Parallel()
	srv := newFake(t, ghfake.WithMaxPerPage(2))
	srv.AddPullRequest(forge.PullRequest{Number: 5, HeadSHA: shaA, Author: "agent"})
	var want []forge.Comment
	for i := range 5 {
		id := srv.AddComment(5, "alice", fmt.Sprintf("comment %d", i))
		want = append(want, forge.Comment{ID: id, Author: "alice", Body: fmt.Sprintf("comment %d", i)})
	}
	srv.AddComment(6, "bob", "elsewhere")
	c, _ := newClient(t, srv)
	got, err := c.ListComments(context.Background(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].CreatedAt.IsZero() {
		t.Fatalf("ListComments: %+v; want each comment's created_at", got)
	}
	for i := range want { // GitHub's created_at, a second apart in the fake
		want[i].CreatedAt = got[0].CreatedAt.Add(time.Duration(i) * time.Second)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListComments (-want +got):\n%s", diff)
	}
	if got, want := srv.CallCount(), 3; got != want {
		t.Errorf("got %d calls, want %d", got, want)
	}
	if got, want := srv.Calls()[0].Query, "per_page=100"; got != want {
		t.Errorf("first query: got %q, want %q", got, want)
	}
}

func TestClient_CreateAndEditComment(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.AddPullRequest(forge.PullRequest{Number: 5, HeadSHA: shaA, Author: "agent"})
	c, _ := newClient(t, srv)
	ctx := context.Background()
	created, err := c.CreateComment(ctx, 5, "first")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.EditComment(ctx, created.ID, "second"); err != nil {
		t.Fatal(err)
	}
	want := []forge.Comment{{ID: created.ID, Author: ghfake.BotLogin, Body: "second"}}
	if diff := cmp.Diff(want, srv.Comments(5)); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
	if got, want := created.Author, ghfake.BotLogin; got != want {
		t.Errorf("created author: got %q, want %q", got, want)
	}
	if err := c.EditComment(ctx, 424242, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("EditComment(missing): got %v, want ErrNotFound", err)
	}
	other, _ := c.CreateComment(ctx, 5, "untouched")
	if got, found, err := c.GetComment(ctx, other.ID); err != nil || !found || got.Edited || got.Body != "untouched" {
		t.Errorf("GetComment(a comment never edited) = %+v, %v, %v", got, found, err)
	}
	if got, found, err := c.GetComment(ctx, created.ID); err != nil || !found || !got.Edited || got.Body != "second" || got.Author != ghfake.BotLogin {
		t.Errorf("GetComment(an edited comment) = %+v, %v, %v; want it edited, with its new body", got, found, err)
	}
	_ = c.DeleteComment(ctx, other.ID)
	if err := c.DeleteComment(ctx, created.ID); err != nil || len(srv.Comments(5)) != 0 {
		t.Errorf("DeleteComment: %v, comments left %v", err, srv.Comments(5))
	}
	if err := c.DeleteComment(ctx, created.ID); err != nil {
		t.Errorf("DeleteComment(already gone): %v; want success", err)
	}
	if _, found, err := c.GetComment(ctx, created.ID); err != nil || found {
		t.Errorf("GetComment(deleted) found %v, err %v; want not found, no error", found, err)
	}
}

func TestClient_Permission(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	for _, p := range []string{"admin", "maintain", "write", "triage", "read"} {
		srv.SetPermission("user-"+p, p)
	}
	c, _ := newClient(t, srv)
	for _, want := range []string{"admin", "maintain", "write", "triage", "read", "none"} {
		got, err := c.Permission(context.Background(), "user-"+want)
		if err != nil || got != want {
			t.Errorf("Permission(user-%s) = %q, %v; want %q, nil", want, got, err, want)
		}
	}
}

func TestClient_Commits(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	srv.AddCommit(shaA, treeT, "checkpoint")
	srv.AddCommit(shaB, shaC, "attempt", shaA)
	c, _ := newClient(t, srv)
	ctx := context.Background()
	tree, err := c.CommitTree(ctx, shaA)
	if err != nil || tree != treeT {
		t.Fatalf("CommitTree = %q, %v; want %q, nil", tree, err, treeT)
	}
	sha, err := c.CreateCommit(ctx, "rollback to checkpoint", tree, []string{shaB})
	if err != nil {
		t.Fatal(err)
	}
	gotTree, msg, parents, ok := srv.Commit(sha)
	want := []any{treeT, "rollback to checkpoint", []string{shaB}, true}
	if diff := cmp.Diff(want, []any{gotTree, msg, parents, ok}); diff != "" {
		t.Errorf("created commit (-want +got):\n%s", diff)
	}
	if _, err := c.CommitTree(ctx, shaC); !errors.Is(err, ErrNotFound) {
		t.Errorf("CommitTree(unknown): got %v, want ErrNotFound", err)
	}
}
