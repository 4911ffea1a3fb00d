package ghapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/greenlight-ci/breaker/internal/forge"
)

func TestClient_RecordedGitRefs(t *testing.T) {
	t.Parallel()
	rec := loadRecorded(t, "git-refs.json")
	const repo = "/repos/octokit-fixture-org/git-refs/git/"
	rp := newReplay(t, map[string]recorded{
		"GET " + repo + "ref/heads/main":     refIn(t, rec[0], "refs/heads/main"),
		"POST " + repo + "refs":              rec[1],
		"PATCH " + repo + "refs/heads/test":  rec[2],
		"GET " + repo + "ref/heads/test":     refIn(t, rec[3], "refs/heads/test"),
		"DELETE " + repo + "refs/heads/test": rec[4],
	})
	c := rp.client(t, "octokit-fixture-org", "git-refs")
	ctx := context.Background()
	one, two := strings.Repeat("0", 39)+"1", strings.Repeat("0", 39)+"2"

	if sha, found, err := c.GetRef(ctx, "heads/main"); err != nil || !found || sha != one {
		t.Errorf("GetRef(heads/main) = %q, %v, %v; want %q, true, nil", sha, found, err, one)
	}
	if err := c.CreateRef(ctx, "heads/test", two); err != nil {
		t.Errorf("CreateRef: %v", err)
	}
	if err := c.UpdateRef(ctx, "heads/test", one, false); err != nil {
		t.Errorf("UpdateRef: %v", err)
	}
	if sha, found, err := c.GetRef(ctx, "heads/test"); err != nil || !found || sha != one {
		t.Errorf("GetRef(heads/test) = %q, %v, %v; want %q, true, nil", sha, found, err, one)
	}
	if err := c.DeleteRef(ctx, "heads/test"); err != nil {
		t.Errorf("DeleteRef: %v", err)
	}
	// The requests carry what was recorded (ours adds the force flag).
	for key, i := range map[string]int{"POST " + repo + "refs": 1, "PATCH " + repo + "refs/heads/test": 2} {
		var got, want map[string]any
		_ = json.Unmarshal([]byte(rp.bodies[key]), &got)
		_ = json.Unmarshal(rec[i].Body, &want)
		delete(got, "force")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s body (-recorded +sent):\n%s", key, diff)
		}
	}
}

func TestClient_RecordedPagination(t *testing.T) {
	t.Parallel()
	rec := loadRecorded(t, "paginate-issues.json")
	routes := map[string]recorded{"GET /repos/octokit-fixture-org/paginate-issues/issues/13/comments?per_page=100": rec[0]}
	var want []forge.Comment
	for i, r := range rec {
		if i > 0 {
			routes["GET "+r.Path] = r // e.g. /repositories/1000/issues?per_page=3&page=2
		}
		var items []struct {
			ID        int64
			Body      string
			User      struct{ Login string }
			CreatedAt time.Time `json:"created_at"`
			UpdatedAt time.Time `json:"updated_at"`
		}
		if err := json.Unmarshal(r.Response, &items); err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			want = append(want, forge.Comment{ID: it.ID, Author: it.User.Login, Body: it.Body, CreatedAt: it.CreatedAt.UTC(), Edited: it.UpdatedAt.After(it.CreatedAt)})
		}
	}
	rp := newReplay(t, routes)
	got, err := rp.client(t, "octokit-fixture-org", "paginate-issues").ListComments(context.Background(), 13)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListComments (-want +got):\n%s", diff)
	}
	if got, want := len(got), 13; got != want {
		t.Errorf("got %d items, want %d", got, want)
	}
	if got, want := rp.calls, 5; got != want {
		t.Errorf("got %d requests, want %d", got, want)
	}
}

func TestClient_RecordedValidationError(t *testing.T) {
	t.Parallel()
	rec := loadRecorded(t, "errors.json")
	rp := newReplay(t, map[string]recorded{"POST /repos/octokit-fixture-org/errors/git/refs": rec[0]})
	err := rp.client(t, "octokit-fixture-org", "errors").CreateRef(context.Background(), "tags/x", strings.Repeat("1", 40))
	for _, sentinel := range []error{forge.ErrRefExists, forge.ErrForbidden, ErrNotFound, ErrUnauthorized} {
		if errors.Is(err, sentinel) {
			t.Errorf("got %v, want not %v", err, sentinel)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "422 Validation Failed") {
		t.Errorf("got %v, want the 422 validation failure", err)
	}
	if got := fmt.Sprint(err); strings.Contains(got, testToken) {
		t.Errorf("got error %q, want no token", got)
	}
}
