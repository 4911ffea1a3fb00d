package report

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/golden"
)

// scenarios are the decisions every renderer is checked against.
var scenarios = []struct {
	name string
	d    func() breaker.Decision
}{
	{"per_test", perTestDecision},
	{"slice_ceiling", sliceCeilingDecision},
	{"manual", manualDecision},
	{"closed", closedDecision},
	{"scope_off", scopeOffDecision},
	{"misreport", misreportDecision},
	{"infra_head", infraHeadDecision},
	{"reset_prior", resetDecision},
	{"adversarial", adversarialDecision},
	{"policy_prp_open", prpOpenDecision},
	{"policy_prp_half_open", prpHalfOpenDecision},
	{"policy_bmad", bmadDecision},
	{"policy_liza", lizaDecision},
}

// matchGolden compares got with testdata/name, or rewrites it under
// -update.
func matchGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Match(t, filepath.Join("testdata", name), got)
}

func TestMarkdown_Golden(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			matchGolden(t, sc.name+".md", Markdown(sc.d(), Options{Marker: true}))
		})
	}
}

func TestJSON_Golden(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			got, err := JSON(sc.d())
			if err != nil {
				t.Fatalf("JSON: %v", err)
			}
			if !json.Valid(got) {
				t.Fatalf("JSON output is not valid JSON:\n%s", got)
			}
			matchGolden(t, sc.name+".json", string(got))
		})
	}
}

func TestText_Golden(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			matchGolden(t, sc.name+".txt", Text(sc.d()))
		})
	}
}

func TestMarkdown_Acknowledgement(t *testing.T) {
	t.Parallel()
	ack := "@maintainer reset S-3 at 2024-05-01 12:00 UTC.\nGuidance: use the contract's key; see <details>."
	matchGolden(t, "acknowledgement.md", Markdown(resetDecision(), Options{Marker: true, Acknowledgement: ack}))
}

func TestRenderers_ZeroDecision(t *testing.T) {
	t.Parallel()
	var d breaker.Decision
	md := Markdown(d, Options{Marker: true})
	p := checkMarkdown(t, md, "")
	if !containsLine(p.outside, "## Running: nothing has failed") {
		t.Errorf("zero decision heading missing:\n%s", md)
	}
	checkTerminal(t, Text(d))
	if _, err := JSON(d); err != nil {
		t.Errorf("JSON(zero) error: %v", err)
	}
}

// A file changed outside the slice's scope without a justification is
// named before anything folded, in both layouts: the spread of changes is
// what a reviewer must not have to unfold. A justified one is not.
func TestMarkdown_OutOfScopeInView(t *testing.T) {
	t.Parallel()
	declared := perTestDecision()
	evidence := perTestDecision()
	evidence.Attempts, evidence.Diagnostics = nil, evidence.Diagnostics[:1]
	for name, d := range map[string]breaker.Decision{"declared attempts": declared, "evidence only": evidence} {
		md := Markdown(d, Options{})
		first, _, ok := strings.Cut(md, "<details>\n<summary>The full diagnostic")
		if !ok {
			t.Fatalf("%s: no folded diagnostic:\n%s", name, md)
		}
		if !strings.Contains(first, "**Out of scope:** 1 file changed outside the slice's scope without a justification: `go.mod`") {
			t.Errorf("%s: the first screen does not name go.mod:\n%s", name, first)
		}
		if strings.Contains(first, "internal/shared/errors.go`\n") || strings.Contains(first, "justification: `internal/shared/errors.go`") {
			t.Errorf("%s: a justified file is named as out of scope:\n%s", name, first)
		}
	}
}
