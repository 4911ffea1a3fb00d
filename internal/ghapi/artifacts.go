package ghapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/greenlight-ci/breaker/internal/forge"
)

// maxArtifactPages bounds the pages of a run's artifacts read.
const maxArtifactPages = 10

// maxMatrixArtifacts bounds the artifacts one pattern downloads (a
// matrix's legs, each uploading its results under a name of its own).
const maxMatrixArtifacts = 16

// findArtifacts finds run runID's unexpired artifacts named name, or whose
// names start with name's text before a final "*" — one listing, filtered
// by name by GitHub when name is exact, every page read; names are what
// the run has, for the error when none matches.
func (c *Client) findArtifacts(ctx context.Context, op string, runID int64, name string) ([]*github.Artifact, []string, error) {
	prefix, pattern := strings.CutSuffix(name, "*")
	u := fmt.Sprintf("repos/%s/%s/actions/runs/%d/artifacts?per_page=100", url.PathEscape(c.owner), url.PathEscape(c.repo), runID)
	if !pattern {
		u += "&name=" + url.QueryEscape(name)
	}
	var names []string
	var found []*github.Artifact
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
			match := a.GetName() == name || (pattern && strings.HasPrefix(a.GetName(), prefix))
			if !match || a.GetExpired() {
				continue
			}
			if !pattern {
				found = []*github.Artifact{a} // the newest of a name is listed last
				continue
			}
			found = append(found, a)
		}
		if resp.NextPage == 0 {
			break
		}
	}
	if len(found) == 0 && len(names) == 0 && !pattern {
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
	sort.Slice(found, func(i, j int) bool { return found[i].GetName() < found[j].GetName() })
	return found, names, nil
}

// DownloadArtifact returns the zip archive of the artifact named name of
// workflow run runID, refusing one over max bytes before and while it is
// downloaded. The archive comes from the short-lived URL GitHub redirects
// to; the token is never sent there.
func (c *Client) DownloadArtifact(ctx context.Context, runID int64, name string, max int64) ([]byte, error) {
	if strings.HasSuffix(name, "*") {
		return nil, fmt.Errorf("download artifact %q of run %d: a pattern names several artifacts; give one name", name, runID)
	}
	zips, err := c.DownloadArtifacts(ctx, runID, name, max)
	if err != nil {
		return nil, err
	}
	return zips[0].Zip, nil
}

// DownloadArtifacts returns the zip archives of run runID's artifacts that
// name names: one name, or a prefix ending in "*" (a matrix's legs, each
// uploading its results as test-results-<leg>), at most
// maxMatrixArtifacts of them and max bytes in all. One request lists them,
// one more each downloads it.
func (c *Client) DownloadArtifacts(ctx context.Context, runID int64, name string, max int64) ([]forge.Artifact, error) {
	op := fmt.Sprintf("download artifact %q of run %d", name, runID)
	arts, names, err := c.findArtifacts(ctx, op, runID, name)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, a := range arts {
		total += a.GetSizeInBytes()
	}
	switch {
	case len(arts) == 0:
		return nil, fmt.Errorf("%s: %w (it has %q); upload the results with actions/upload-artifact under that name", op, forge.ErrNoArtifact, names)
	case len(arts) > maxMatrixArtifacts:
		return nil, fmt.Errorf("%s: %d artifacts match, over the cap of %d; not downloaded", op, len(arts), maxMatrixArtifacts)
	case total > max && len(arts) == 1:
		return nil, fmt.Errorf("%s: it is %d bytes, over the %d-byte cap; not downloaded", op, total, max)
	case total > max:
		return nil, fmt.Errorf("%s: the %d artifacts are %d bytes in all, over the %d-byte cap; not downloaded", op, len(arts), total, max)
	}
	out := make([]forge.Artifact, 0, len(arts))
	left := max
	for _, art := range arts {
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
		data, err := io.ReadAll(io.LimitReader(resp.Body, left+1))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		if int64(len(data)) > left {
			return nil, fmt.Errorf("%s: the archive is over the %d-byte cap; not read", op, max)
		}
		left -= int64(len(data))
		out = append(out, forge.Artifact{Name: art.GetName(), Zip: data})
	}
	return out, nil
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
