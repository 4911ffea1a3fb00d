package breaker

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/greenlight-ci/breaker/internal/golden"
)

// TestEvaluate_Golden pins the whole Decision, diagnostics' wording
// included, for one scenario per trip kind. Refresh with -update.
func TestEvaluate_Golden(t *testing.T) {
	t.Parallel()
	ceiling := input(chain(attempt("TestA"), attempt("TestA"), attempt("TestB"), attempt("TestB"),
		attempt("TestC"), attempt("TestC", "+docs/notes.md", "Greenlight-Justify: docs/notes.md: TestC reads it"),
		attempt("TestD", "~routes.go"), attempt("TestE")),
		observe(sha(8), "TestA=fail", "TestB=fail", "TestC=fail", "TestD=pass", "TestE=pass"))
	ceiling.Scope = fakeScope{prefix: "internal/"}
	manual := input(chain(attempt("TestA", "Greenlight-Error: expected 2, got 3")), Observation{Head: sha(1), Infra: "build failed"})
	manual.Force = true
	tests := map[string]Input{
		"per_test":      spiral([3]string{"got 500", "got 500", "got 500"}),
		"slice_ceiling": ceiling,
		"manual":        manual,
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := json.MarshalIndent(Evaluate(in), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden.Match(t, filepath.Join("testdata", name+".golden.json"), string(got))
		})
	}
}
