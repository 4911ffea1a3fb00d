package scope

import (
	"os"
	"strings"
	"testing"
)

// The documented example graph (examples/GRAPH.json) loads, locks what
// docs/scope.md says, and is the same text that page shows.
func TestExampleGraph(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../examples/GRAPH.json")
	if err != nil {
		t.Fatal(err)
	}
	src, err := Parse(".greenlight/GRAPH.json", data, nil)
	if err != nil {
		t.Fatalf("the example graph does not load: %v", err)
	}
	s3, s4 := src.Lock("S-3"), src.Lock("S-4")
	for path, want := range map[string]bool{
		"internal/users/service.go": true, "internal/http/handlers/users.go": true, "docs/api/users.md": true,
		"internal/billing/invoice.go": false, ".greenlight/GRAPH.json": false,
	} {
		if got := s3.InScope(path); got != want {
			t.Errorf("S-3: InScope(%s) = %v, want %v", path, got, want)
		}
	}
	if !s4.InScope("internal/auth/token.go") || s4.InScope("internal/users/service.go") {
		t.Errorf("S-4: files_in_scope is not the whole scope")
	}
	readme, err := os.ReadFile("../../docs/scope.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), strings.TrimRight(string(data), "\n")) {
		t.Errorf("docs/scope.md does not show examples/GRAPH.json as it is")
	}
}
