package testresult

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

func TestParseTAP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		in           string
		want         []Test
		wantInfra    []string
		wantWarnings []string
	}{
		{
			name: "ok, not ok with YAML, skip, todo",
			in: `TAP version 13
1..5
ok 1 - adds numbers
not ok 2 - divides by zero
  ---
  message: 'expected error, got nil'
  severity: fail
  at:
    file: test/math.js
    line: 42
  ...
ok 3 - network # SKIP no network in CI
not ok 4 - future feature # TODO not built yet
ok 5 escaped \# hash
`,
			want: []Test{
				{Name: "adds numbers", Status: breaker.StatusPass},
				{Name: "divides by zero", Status: breaker.StatusFail, Message: "expected error, got nil", File: "test/math.js", Line: 42,
					Output: "  message: 'expected error, got nil'\n  severity: fail\n  at:\n    file: test/math.js\n    line: 42\n"},
				{Name: "network", Status: breaker.StatusSkip, Message: "skip: no network in CI"},
				{Name: "future feature", Status: breaker.StatusSkip, Message: "todo: not built yet"},
				{Name: "escaped # hash", Status: breaker.StatusPass},
			},
		},
		{
			name: "literal block message, plan at the end, unnamed test",
			in:   "not ok 1 - a\n  ---\n  message: |\n    line one\n    line two\n  ...\nok 2\n1..2\n",
			want: []Test{
				{Name: "a", Status: breaker.StatusFail, Message: "line one\nline two", Output: "  message: |\n    line one\n    line two\n"},
				{Name: "#2", Status: breaker.StatusPass},
			},
		},
		{
			name:      "bail out before any test is infra",
			in:        "TAP version 13\n1..3\nBail out! database unreachable\nok 1 - never read\n",
			wantInfra: []string{"bailed out before any test: database unreachable"},
		},
		{
			name:         "bail out after a test is a warning",
			in:           "1..3\nok 1 - a\nBail out! disk full\n",
			want:         []Test{{Name: "a", Status: breaker.StatusPass}},
			wantWarnings: []string{"bailed out after 1 tests: disk full"},
		},
		{
			name:      "an empty plan is infra",
			in:        "1..0 # SKIP no tests on this platform\n",
			wantInfra: []string{"the TAP plan is 1..0 (no tests): SKIP no tests on this platform"},
		},
		{
			name:         "fewer tests than planned",
			in:           "1..3\nok 1 - a\n    ok 1 - indented subtest line is ignored\nnot ok 2 - b\n",
			want:         []Test{{Name: "a", Status: breaker.StatusPass}, {Name: "b", Status: breaker.StatusFail}},
			wantWarnings: []string{"the plan announced 3 tests, 2 were reported"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := ParseTAP(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if diff := cmp.Diff(tt.want, res.Tests); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantInfra, res.Infra); diff != "" {
				t.Errorf("infra (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, res.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
