package scope

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

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
	golden := filepath.Join("testdata", "real-graph-notes.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}
