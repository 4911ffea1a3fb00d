package evaluate

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/testresult"
)

func TestBuildObservation(t *testing.T) {
	t.Parallel()
	tests := []testresult.Test{
		{Suite: "example.com/app/calc", Name: "TestDivide/by_zero", Status: breaker.StatusFail, Message: "want an error", Output: "out", File: "calc_test.go", Line: 21},
		{Suite: "example.com/app/api", Name: "TestServe", Status: breaker.StatusPass},
		{Suite: "example.com/app/web", Name: "TestServe", Status: breaker.StatusFail},
		{Suite: "tests.test_net", Name: "test_retry", Status: breaker.StatusPass, Flaky: true,
			Runs: []testresult.Run{{Status: breaker.StatusFail}, {Status: breaker.StatusPass}}},
	}
	files := []testresult.File{
		{Path: "a.json", Result: &testresult.Result{Tests: tests}},
		{Path: "b.xml", Err: errors.New("b.xml: offset 3: empty file")},
	}
	rep := testresult.Merge(files, nil)
	cases := []struct {
		name  string
		rep   testresult.Report
		names []string
		want  breaker.Observation
	}{
		{
			name:  "exact, subtest with spaces, ambiguous, missing and flaky names",
			rep:   rep,
			names: []string{"TestDivide/by zero", "TestServe", "TestNope", "test_net.test_retry", "TestDivide/by zero"},
			want: breaker.Observation{
				Head: "abc123",
				Tests: map[string]breaker.ObservedTest{
					"TestDivide/by zero": {Name: "example.com/app/calc.TestDivide/by_zero", Status: breaker.StatusFail,
						Message: "want an error", Output: "out", File: "calc_test.go", Line: 21},
					"test_net.test_retry": {Name: "tests.test_net.test_retry", Status: breaker.StatusPass},
				},
				Notes: []string{
					"result file not read: b.xml: offset 3: empty file",
					`Greenlight-Test "TestServe" is ambiguous: it matches 2 tests ("example.com/app/api.TestServe", "example.com/app/web.TestServe"); not observed: name one of them in full`,
					`Greenlight-Test "TestNope": no test of that name in the results; not observed`,
					`Greenlight-Test "test_net.test_retry": tests.test_net.test_retry was flaky: it failed, then passed on a rerun (2 runs); observed as pass`,
				},
			},
		},
		{
			name:  "an infra run keeps its reason and says nothing of missing names",
			rep:   testresult.Merge([]testresult.File{{Path: "x.json", Result: &testresult.Result{Infra: []string{"build failed: p"}}}}, nil),
			names: []string{"TestA"},
			want:  breaker.Observation{Head: "abc123", Infra: "build failed: p", InfraKind: breaker.InfraBuild, Tests: map[string]breaker.ObservedTest{}},
		},
		{
			name: "no result file matched",
			rep:  testresult.Merge(nil, []string{"out/*.xml"}),
			want: breaker.Observation{Head: "abc123", Infra: "no result files matched out/*.xml", InfraKind: breaker.InfraNoResults, Tests: map[string]breaker.ObservedTest{}},
		},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := buildObservation("abc123", tt.rep, tt.names, "Greenlight-Test")
			for name, o := range got.Failing { // every failing test, by full name, with CI's text
				if !o.Status.Failed() || o.Name != name {
					t.Errorf("Failing[%q] = %+v", name, o)
				}
			}
			got.Failing = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("observation (-want +got):\n%s", diff)
			}
		})
	}
}
