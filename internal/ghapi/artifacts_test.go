package ghapi

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// A run with more artifacts than a page: the results artifact is asked
// for by name (the endpoint's filter), so it is found wherever it sits;
// a missing one is an error naming what the run has.
func TestClient_DownloadArtifactByName(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	for i := range 150 {
		srv.AddArtifact(77, "coverage-"+strconv.Itoa(i), []byte("PK"))
	}
	srv.AddArtifact(77, "test-results", []byte("PK results"))
	c, _ := newClient(t, srv)
	data, err := c.DownloadArtifact(context.Background(), 77, "test-results", 1<<20)
	if err != nil || string(data) != "PK results" {
		t.Fatalf("DownloadArtifact = %q, %v; want the results archive", data, err)
	}
	asked := false
	for _, call := range srv.Calls() {
		if strings.HasSuffix(call.Path, "/actions/runs/77/artifacts") && strings.Contains(call.Query, "name=test-results") {
			asked = true
		}
	}
	if !asked {
		t.Errorf("the artifact was not asked for by name: %v", srv.Calls())
	}
	_, err = c.DownloadArtifact(context.Background(), 77, "junit", 1<<20)
	if err == nil || !strings.Contains(err.Error(), "coverage-0") || !strings.Contains(err.Error(), "upload the results") {
		t.Errorf("missing artifact: %v; want an error naming the run's artifacts and the fix", err)
	}
}

// A 200 MiB artifact, over the 64 MiB bound of an API answer and under the
// documented 256 MiB cap, is read whole: the archive download has its own
// bound. One over the cap the caller gives is refused by size.
func TestClient_DownloadArtifactPastTheAPIBodyCap(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	const size = 200 << 20
	srv.AddLargeArtifact(78, "test-results", size)
	c, _ := newClient(t, srv)
	data, err := c.DownloadArtifact(context.Background(), 78, "test-results", MaxArtifactBytes)
	if err != nil || len(data) != size {
		t.Fatalf("DownloadArtifact: %d bytes, %v; want all %d", len(data), err, size)
	}
	_, err = c.DownloadArtifact(context.Background(), 78, "test-results", 100<<20)
	if err == nil || !strings.Contains(err.Error(), "over the") {
		t.Errorf("over the caller's cap: %v; want a refusal by size", err)
	}
}
