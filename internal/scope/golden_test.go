package scope

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/golden"
)

// TestGraph_Lock_RealGraphNotes renders the lock of every slice of the real
// graph, read with the synthetic contracts document, as a user reads it.
func TestGraph_Lock_RealGraphNotes(t *testing.T) {
	t.Parallel()
	g, err := Parse(".greenlight/GRAPH.json", realGraph(t), testContracts(t))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	ids := make([]string, 0, len(g.slices))
	for id := range g.slices {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	for _, id := range ids {
		info := g.Lock(id).Info()
		fmt.Fprintf(&b, "%s\tenabled=%v\tsource=%s\t%s\n", id, info.Enabled, info.Source, info.Note)
	}
	golden.Match(t, filepath.Join("testdata", "real-graph-notes.golden"), b.String())
}
