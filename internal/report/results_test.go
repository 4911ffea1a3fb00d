package report

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/testresult"
)

// The JSON example docs/results.md shows is the shape breaker results
// writes: every key it names is one the command writes, and every key the
// command writes is in it (issue 33: every example in the docs checked).
func TestResults_DocumentedJSONIsTheShape(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "The JSON format (`--format json`)")
	if !ok {
		t.Fatal("docs/results.md no longer describes the JSON format")
	}
	_, rest, _ = strings.Cut(rest, "```json\n")
	example, _, _ := strings.Cut(rest, "```")
	dec := json.NewDecoder(strings.NewReader(example))
	dec.DisallowUnknownFields()
	var got resultsJSON
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("the documented example is not what breaker results writes: %v", err)
	}
	keys := func(s string) []string {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		var out []string
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					out = append(out, prefix+k)
					walk(prefix+k+".", e)
				}
			case []any:
				for _, e := range x {
					walk(prefix, e)
				}
			}
		}
		walk("", v)
		sort.Strings(out)
		return slices.Compact(out)
	}
	back, _ := json.Marshal(got)
	if a, b := keys(example), keys(string(back)); strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("the documented keys\n%v\ndiffer from the written ones\n%v", a, b)
	}
}

// The JSON report is written a test at a time, and is the document
// json.MarshalIndent gives of the whole, byte for byte: no tests, one,
// many, with runs, and text that must be defused.
func TestResults_JSONStreamedIsTheWholeDocument(t *testing.T) {
	t.Parallel()
	reports := []testresult.Report{
		{},
		{Infra: "no result file matched", Files: []testresult.File{{Path: "a.xml", Err: errors.New("missing")}}},
		{Tests: []testresult.Test{{Name: "TestA", Status: "pass"}}},
		{Tests: []testresult.Test{
			{Suite: "p", Name: "TestB", Status: "fail", Message: "::error::boom <&>", Output: "##[group]x\n::warning::y", File: "b_test.go", Line: 3,
				Runs: []testresult.Run{{Status: "fail", Message: "first"}, {Status: "pass"}}, Flaky: true},
			{Suite: "p", Name: `T"q"`, Status: "skip"},
		}},
	}
	for i, rep := range reports {
		var got strings.Builder
		if err := WriteResultsJSON(&got, rep); err != nil {
			t.Fatal(err)
		}
		whole := resultsJSON{Files: []fileJSON{}, Counts: rep.Counts(), Tests: []testJSON{}, Infra: optional(rep.Infra)}
		for _, f := range rep.Files {
			fj := fileJSON{Path: f.Path, Format: optional(fileFormat(f)), Warnings: []string{}}
			if f.Err != nil {
				fj.Error = optional(f.Err.Error())
			}
			whole.Files = append(whole.Files, fj)
		}
		for _, tt := range rep.Tests {
			whole.Tests = append(whole.Tests, testOf(tt))
		}
		data, err := json.MarshalIndent(whole, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if want := DefuseCommands(string(data) + "\n"); got.String() != want {
			t.Errorf("report %d: streamed\n%s\nwant\n%s", i, got.String(), want)
		}
	}
}
