package testresult

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

func TestMerge(t *testing.T) {
	t.Parallel()
	pass := func(n string) Test { return Test{Suite: "s", Name: n, Status: breaker.StatusPass} }
	fail := func(n string) Test { return Test{Suite: "s", Name: n, Status: breaker.StatusFail, Message: "m"} }
	res := func(ts ...Test) *Result { return &Result{Format: FormatJUnit, Tests: ts} }
	tests := []struct {
		name      string
		globs     []string // nil: out/*.xml
		files     []File
		want      []Test
		wantInfra string
	}{
		{
			name:      "no file matched",
			wantInfra: "no result files matched out/*.xml",
		},
		{
			name:      "no glob given",
			globs:     []string{},
			wantInfra: "no result files: no path or glob was given",
		},
		{
			name:      "no file could be read",
			files:     []File{{Path: "a.xml", Err: errors.New("bad")}},
			wantInfra: "no result file could be read",
		},
		{
			name:      "zero tests",
			files:     []File{{Path: "a.xml", Result: res()}},
			wantInfra: "zero tests in the results",
		},
		{
			name:  "a name in two files: the worst outcome wins",
			files: []File{{Path: "a.xml", Result: res(fail("t"), pass("u"))}, {Path: "b.xml", Result: res(pass("t"))}},
			want: []Test{
				{Suite: "s", Name: "t", Status: breaker.StatusFail, Message: "m", Runs: []Run{{Status: breaker.StatusFail, Message: "m"}, {Status: breaker.StatusPass}}},
				pass("u"),
			},
		},
		{
			name:  "an unreadable file beside a readable one",
			files: []File{{Path: "a.xml", Err: errors.New("bad")}, {Path: "b.xml", Result: res(pass("t"))}},
			want:  []Test{pass("t")},
		},
		{
			name: "infra reasons of several files",
			files: []File{
				{Path: "a.json", Result: &Result{Infra: []string{"build failed: x"}}},
				{Path: "b.json", Result: &Result{Infra: []string{"build failed: y"}, Tests: []Test{pass("t")}}},
			},
			want:      []Test{pass("t")},
			wantInfra: "build failed: x (and 1 more)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			globs := tt.globs
			if globs == nil {
				globs = []string{"out/*.xml"}
			}
			rep := Merge(tt.files, globs)
			if diff := cmp.Diff(tt.want, rep.Tests); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
			if rep.Infra != tt.wantInfra {
				t.Errorf("got infra %q, want %q", rep.Infra, tt.wantInfra)
			}
		})
	}
}
