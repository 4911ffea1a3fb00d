package ghapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/go-github/v60/github"
)

// maxArtifactPages bounds the pages of a run's artifacts read.
const maxArtifactPages = 10

// findArtifact finds run runID's unexpired artifact name, asking GitHub
// for that name (the endpoint's name filter) and reading every page; names
// are what the run has when it is not found.
func (c *Client) findArtifact(ctx context.Context, op string, runID int64, name string) (*github.Artifact, []string, error) {
	u := fmt.Sprintf("repos/%s/%s/actions/runs/%d/artifacts?name=%s&per_page=100",
		url.PathEscape(c.owner), url.PathEscape(c.repo), runID, url.QueryEscape(name))
	var names []string
	var found *github.Artifact
	for page := 1; page <= maxArtifactPages; page++ {
		var list github.ArtifactList
		resp, err := c.call(op, func() (*github.Response, error) {
			req, err := c.gh.NewRequest(http.MethodGet, u+"&page="+strconv.Itoa(page), nil)
			if err != nil {
				return nil, err
			}
			return c.gh.Do(ctx, req, &list)
		})
		if err != nil {
			return nil, nil, err
		}
		for _, a := range list.Artifacts {
			names = append(names, a.GetName())
			if a.GetName() == name && !a.GetExpired() {
				found = a
			}
		}
		if resp.NextPage == 0 {
			break
		}
	}
	if found == nil && len(names) == 0 {
		// Name the run's artifacts in the error: one more request, on the
		// way to failing anyway.
		var list *github.ArtifactList
		if _, err := c.call(op, func() (r *github.Response, err error) {
			list, r, err = c.gh.Actions.ListWorkflowRunArtifacts(ctx, c.owner, c.repo, runID, &github.ListOptions{PerPage: 100})
			return r, err
		}); err == nil {
			for _, a := range list.Artifacts {
				names = append(names, a.GetName())
			}
		}
	}
	return found, names, nil
}

// DownloadArtifact returns the zip archive of the artifact named name of
// workflow run runID, refusing one over max bytes before and while it is
// downloaded. The archive comes from the short-lived URL GitHub redirects
// to; the token is never sent there.
func (c *Client) DownloadArtifact(ctx context.Context, runID int64, name string, max int64) ([]byte, error) {
	op := fmt.Sprintf("download artifact %q of run %d", name, runID)
	art, names, err := c.findArtifact(ctx, op, runID, name)
	if err != nil {
		return nil, err
	}
	switch {
	case art == nil:
		return nil, fmt.Errorf("%s: the run has no such artifact (it has %q); upload the results with actions/upload-artifact under that name", op, names)
	case art.GetSizeInBytes() > max:
		return nil, fmt.Errorf("%s: it is %d bytes, over the %d-byte cap; not downloaded", op, art.GetSizeInBytes(), max)
	}
	var loc string
	_, err = c.call(op, func() (*github.Response, error) {
		u, r, err := c.gh.Actions.DownloadArtifact(ctx, c.owner, c.repo, art.GetID(), 0)
		if u != nil {
			loc = u.String()
		}
		return r, err
	})
	if err != nil {
		return nil, err
	}
	resp, err := c.redirected(ctx, op, "archive", loc)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: the archive is over the %d-byte cap; not read", op, max)
	}
	return data, nil
}

// redirected gets the short-lived URL GitHub redirected a download to
// (an artifact's archive, a job's log), without the token; a status other
// than 200 is an error naming what was downloaded.
func (c *Client) redirected(ctx context.Context, op, what, loc string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	resp, err := c.blob.Do(req)
	if err != nil {
		return nil, c.redact(fmt.Errorf("%s: %w", op, err))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: the %s URL answered %s", op, what, resp.Status)
	}
	return resp, nil
}
