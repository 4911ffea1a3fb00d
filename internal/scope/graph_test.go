package scope

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixtures is Greenlight's real data, kept beside the repository.
const fixtures = "../../../shared/fixtures/greenlight"

// realGraph reads the real GRAPH.json, or skips when the fixtures are absent.
func realGraph(t testing.TB) []byte {
	t.Helper()
	data, err := readRealGraph()
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("corpus: %s not found (the ../shared corpus beside the repository)", fixtures)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func readRealGraph() ([]byte, error) {
	return os.ReadFile(filepath.Join(fixtures, "GRAPH.json"))
}

func testContracts(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "CONTRACTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParse_RealGraph(t *testing.T) {
	t.Parallel()
	g, err := Parse(".greenlight/GRAPH.json", realGraph(t), nil)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got, want := len(g.slices), 46; got != want {
		t.Errorf("slices: got %d, want %d", got, want)
	}
	got := g.slices["S-01"]
	want := sliceDef{
		Packages:  []string{"internal/version", "internal/cmd/version.go"},
		TestFiles: []string{"internal/version/version_test.go", "internal/cmd/version_test.go"},
		Contracts: []string{"C-01", "C-11"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("S-01 (-want +got):\n%s", diff)
	}
}

func TestParse_Errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		graph string
		want  string
	}{
		{"empty file", ``, `g.json:1:1: unexpected end of JSON input`},
		{"truncated", `{"slices": `, `g.json:1:11: unexpected end of JSON input`},
		{"bad key on line 3", "{\n  \"slices\": {\n    \"S-1\": {,}\n  }\n}",
			`g.json:3:13: invalid character ',' looking for beginning of object key string`},
		{"top level array", `[]`, `g.json:1:1: the graph: got a JSON array, want an object`},
		{"packages a string", `{"slices": {"S-1": {"packages": "internal/x"}}}`,
			`g.json:1:33: slices.*.packages: got a JSON string, want an array of strings`},
		{"number in a list", "{\"slices\": {\"S-1\": {\n\"test_files\": [\"a_test.go\", 12]}}}",
			`g.json:2:29: slices.*.test_files: got a JSON number, want a string`},
		{"slice not an object", `{"slices": {"S-1": true}}`,
			`g.json:1:20: slices: got a JSON bool, want an object`},
		{"array form, object list", `{"slices": [{"id": "S-1", "files_in_scope": {}}]}`,
			`g.json:1:45: slices.*.files_in_scope: got a JSON object, want an array of strings`},
		{"no slices", `{"project": "x"}`, `g.json: no "slices" in the slice graph`},
		{"null slices", `{"slices": null}`, `g.json: no "slices" in the slice graph`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := Parse("g.json", []byte(tt.graph), nil)
			if err == nil {
				t.Fatalf("Parse: got graph %+v, want error %q", g, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\ngot  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParse_PositionErrorUnwraps(t *testing.T) {
	t.Parallel()
	_, err := Parse("g.json", []byte("{\n\"slices\": {]"), nil)
	var pos *PositionError
	if !errors.As(err, &pos) {
		t.Fatalf("got %T %v, want a *PositionError", err, err)
	}
	if diff := cmp.Diff([]int{2, 12}, []int{pos.Line, pos.Column}); diff != "" {
		t.Errorf("line, column (-want +got):\n%s", diff)
	}
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		t.Errorf("got %v, want it to wrap a *json.SyntaxError", err)
	}
}

func TestParse_Shapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		graph string
		want  []string // slice ids
	}{
		{"object keyed by id", `{"slices": {"S-1": {}, "S-2": {}}}`, []string{"S-1", "S-2"}},
		{"array with ids; first of a duplicate wins, no id is dropped",
			`{"slices": [{"id": "S-1"}, {"id": "S-1", "packages": ["x"]}, {"packages": ["y"]}]}`,
			[]string{"S-1"}},
		{"byte order mark", "\ufeff" + `{"slices": {"S-9": {}}}`, []string{"S-9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := Parse("g.json", []byte(tt.graph), nil)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var got []string
			for id := range g.slices {
				got = append(got, id)
			}
			if diff := cmp.Diff(tt.want, got, sortStrings); diff != "" {
				t.Errorf("slice ids (-want +got):\n%s", diff)
			}
		})
	}
	g, err := Parse("g.json", []byte(`{"slices": [{"id": "S-1"}, {"id": "S-1", "packages": ["x"]}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.slices["S-1"].Packages; got != nil {
		t.Errorf("duplicate id: got packages %q, want the first definition's (none)", got)
	}
}
