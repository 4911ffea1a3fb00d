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
