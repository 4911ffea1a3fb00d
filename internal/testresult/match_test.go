package testresult

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []Test{
		{Suite: "github.com/acme/app/internal/cli", Name: "TestRun"},
		{Suite: "github.com/acme/app/internal/cli", Name: "TestRun/empty_input"},
		{Suite: "github.com/acme/app/internal/api", Name: "TestServe"},
		{Suite: "github.com/acme/app/other/api", Name: "TestServe"},
		{Suite: "tests.test_math.TestDivide", Name: "test_by_zero"},
		{Suite: "tests.test_math", Name: "test_add"},
		{Name: "adds numbers"},
	}
	names := func(ts []Test) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.FullName())
		}
		return out
	}
	cases := []struct {
		trailer string
		want    []string
	}{
		{"github.com/acme/app/internal/cli.TestRun", []string{"github.com/acme/app/internal/cli.TestRun"}},
		{"github.com/acme/app/internal/cli/TestRun", []string{"github.com/acme/app/internal/cli.TestRun"}},
		{"internal/cli/TestRun", []string{"github.com/acme/app/internal/cli.TestRun"}},
		{"cli.TestRun", []string{"github.com/acme/app/internal/cli.TestRun"}},
		{"TestRun", []string{"github.com/acme/app/internal/cli.TestRun"}},
		{"TestRun/empty_input", []string{"github.com/acme/app/internal/cli.TestRun/empty_input"}},
		{"TestRun/empty input", []string{"github.com/acme/app/internal/cli.TestRun/empty_input"}},
		{"cli/TestRun/empty input", []string{"github.com/acme/app/internal/cli.TestRun/empty_input"}},
		{"TestServe", []string{"github.com/acme/app/internal/api.TestServe", "github.com/acme/app/other/api.TestServe"}},
		{"api.TestServe", []string{"github.com/acme/app/internal/api.TestServe", "github.com/acme/app/other/api.TestServe"}},
		{"internal/api/TestServe", []string{"github.com/acme/app/internal/api.TestServe"}},
		{"tests.test_math.TestDivide.test_by_zero", []string{"tests.test_math.TestDivide.test_by_zero"}},
		{"TestDivide.test_by_zero", []string{"tests.test_math.TestDivide.test_by_zero"}},
		{"test_by_zero", []string{"tests.test_math.TestDivide.test_by_zero"}},
		{"tests/test_math.py::TestDivide::test_by_zero", []string{"tests.test_math.TestDivide.test_by_zero"}},
		{"tests/test_math.py::test_add", []string{"tests.test_math.test_add"}},
		{"adds numbers", []string{"adds numbers"}},
		{"li.TestRun", nil},
		{"TestNope", nil},
		{"", nil},
	}
	for _, tt := range cases {
		t.Run(tt.trailer, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, names(Match(tests, tt.trailer))); diff != "" {
				t.Errorf("Match(%q) (-want +got):\n%s", tt.trailer, diff)
			}
		})
	}
}
