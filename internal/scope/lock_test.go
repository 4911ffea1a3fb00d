package scope

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

var sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })

// pathCase is one path and whether it is in scope.
type pathCase struct {
	path string
	want bool
}

// checkPaths asserts InScope for every case.
func checkPaths(t *testing.T, l breaker.ScopeLock, cases []pathCase) {
	t.Helper()
	for _, c := range cases {
		if got := l.InScope(c.path); got != c.want {
			t.Errorf("InScope(%q): got %v, want %v", c.path, got, c.want)
		}
	}
}

func TestGraph_Lock_RealGraph(t *testing.T) {
	t.Parallel()
	g, err := Parse(".greenlight/GRAPH.json", realGraph(t), nil)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	for _, tt := range realGraphCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := g.Lock(tt.slice)
			if diff := cmp.Diff(tt.info, l.Info()); diff != "" {
				t.Errorf("Info (-want +got):\n%s", diff)
			}
			checkPaths(t, l, tt.paths)
		})
	}
}

// lockCase is a slice, the lock info it must get and paths to classify.
type lockCase struct {
	name  string
	slice string
	info  breaker.ScopeInfo
	paths []pathCase
}

// realGraphCases are slices of the real GRAPH.json.
func realGraphCases() []lockCase {
	return []lockCase{
		{
			name: "S-01 packages mix a directory and a file", slice: "S-01",
			info: breaker.ScopeInfo{Enabled: true, Source: "graph",
				Note: "slice S-01 from .greenlight/GRAPH.json: 2 packages, 2 test files"},
			paths: []pathCase{
				{"internal/version/version.go", true},     // inside the directory entry
				{"internal/version/deep/x.go", true},      // recursively
				{"./internal/version//version.go", true},  // cleaned first
				{"internal/cmd/version.go", true},         // the file entry
				{"internal/cmd/version_test.go", true},    // a test file
				{"internal/cmd/install.go", false},        // same directory as a file entry: not widened
				{"internal/versionx/a.go", false},         // a prefix, not a directory
				{"internal/cmd/version.go.orig", false},   // a prefix of a file entry
				{".greenlight/GRAPH.json", false},         // the graph itself
				{"internal/version/../../main.go", false}, // cleans to main.go
				{"../internal/version/version.go", false}, // outside the repository
				{"/internal/version/version.go", false},   // absolute
				{"", false},
			},
		},
		{
			name: "S-12 deliverables carry notes", slice: "S-12",
			info: breaker.ScopeInfo{Enabled: true, Source: "graph",
				Note: "slice S-12 from .greenlight/GRAPH.json: 4 deliverables"},
			paths: []pathCase{
				{"internal/installer/installer.go", true}, // "... (manifest update)"
				{"src/templates/config.md", true},         // "... (update)"
				{"src/CLAUDE.md", true},
				{"src/commands/gl/init.md", true},
				{"src/commands/gl/init.md (update)", false}, // the note is not part of a path
				{"src/templates/state.md", false},
				{"internal/installer/installer_test.go", false},
			},
		},
		{
			name: "S-18 deliverable note with markup", slice: "S-18",
			info: breaker.ScopeInfo{Enabled: true, Source: "graph",
				Note: "slice S-18 from .greenlight/GRAPH.json: 2 deliverables"},
			paths: []pathCase{
				{"src/agents/gl-implementer.md", true}, // "(rewrite <error_recovery>)"
				{"src/references/circuit-breaker.md", true},
				{"src/references/deviation-rules.md", false},
			},
		},
		{
			name: "not in the graph", slice: "S-99",
			info: breaker.ScopeInfo{Source: "none",
				Note: "slice S-99 is not in .greenlight/GRAPH.json: scope lock off"},
			paths: []pathCase{{"anything/at/all.go", true}, {".greenlight/GRAPH.json", true}},
		},
		{
			name: "no slice id", slice: "",
			info: breaker.ScopeInfo{Source: "none",
				Note: "no slice id to look up in .greenlight/GRAPH.json: scope lock off"},
			paths: []pathCase{{"main.go", true}},
		},
	}
}

func TestGraph_Lock_Synthetic(t *testing.T) {
	t.Parallel()
	const graph = `{"slices": {
	"override": {
		"packages": ["internal/ignored"],
		"deliverables": ["docs/ignored.md"],
		"contracts": ["C-01"],
		"files_in_scope": ["internal/auth/", "internal/middleware/auth.go", "./web/**/*.ts", "/abs/x.go", "../up.go", ""],
		"test_files": ["internal/auth/auth_test.go", "e2e/login_test.go"]
	},
	"empty":   {"packages": ["internal/x"], "files_in_scope": [], "test_files": ["internal/x/x_test.go"]},
	"nothing": {"packages": ["internal/x"], "files_in_scope": []},
	"null":    {"packages": ["internal/x"], "files_in_scope": null},
	"root":    {"files_in_scope": ["./"]},
	"bare":    {"contracts": ["C-01"], "depends_on": ["S-1"]},
	"junk":    {"packages": ["/etc", "[bad"]}
}}`
	g, err := Parse(".greenlight/GRAPH.json", []byte(graph), nil)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	tests := []struct {
		slice string
		info  breaker.ScopeInfo
		paths []pathCase
	}{
		{"override", breaker.ScopeInfo{Enabled: true, Source: "files_in_scope",
			Note: "files_in_scope of slice override in .greenlight/GRAPH.json: 3 entries, 2 test files" +
				" (3 entries ignored: empty, absolute, outside the repository or a bad pattern)"},
			[]pathCase{
				{"internal/auth/token.go", true},
				{"internal/auth/oauth/google.go", true},
				{"internal/middleware/auth.go", true},
				{"internal/middleware/log.go", false},
				{"web/src/app/login.ts", true},
				{"web/src/app/login.tsx", false},
				{"e2e/login_test.go", true},
				{"internal/ignored/x.go", false}, // packages do not count under an override
				{"docs/ignored.md", false},
				{"abs/x.go", false},
			}},
		{"empty", breaker.ScopeInfo{Enabled: true, Source: "files_in_scope",
			Note: "files_in_scope of slice empty in .greenlight/GRAPH.json is empty: only its 1 test file is in scope"},
			[]pathCase{{"internal/x/x.go", false}, {"internal/x/x_test.go", true}}},
		{"nothing", breaker.ScopeInfo{Enabled: true, Source: "files_in_scope",
			Note: "files_in_scope of slice nothing in .greenlight/GRAPH.json is empty: nothing is in scope"},
			[]pathCase{{"internal/x/x.go", false}, {"README.md", false}}},
		{"null", breaker.ScopeInfo{Enabled: true, Source: "graph",
			Note: "slice null from .greenlight/GRAPH.json: 1 package"},
			[]pathCase{{"internal/x/x.go", true}, {"README.md", false}}},
		{"root", breaker.ScopeInfo{Enabled: true, Source: "files_in_scope",
			Note: "files_in_scope of slice root in .greenlight/GRAPH.json: 1 entry"},
			[]pathCase{{"README.md", true}, {"a/b/c.go", true}, {".greenlight/GRAPH.json", false}, {".", false}}},
		{"bare", breaker.ScopeInfo{Source: "none",
			Note: "slice bare in .greenlight/GRAPH.json names no packages, deliverables, test files or contract paths: scope lock off"},
			[]pathCase{{"README.md", true}}},
		{"junk", breaker.ScopeInfo{Source: "none",
			Note: "slice junk in .greenlight/GRAPH.json names no packages, deliverables, test files or contract paths: scope lock off" +
				" (2 entries ignored: empty, absolute, outside the repository or a bad pattern)"},
			[]pathCase{{"etc/passwd", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.slice, func(t *testing.T) {
			t.Parallel()
			l := g.Lock(tt.slice)
			if diff := cmp.Diff(tt.info, l.Info()); diff != "" {
				t.Errorf("Info (-want +got):\n%s", diff)
			}
			checkPaths(t, l, tt.paths)
		})
	}
}

func TestGraph_Lock_Contracts(t *testing.T) {
	t.Parallel()
	const graph = `{"slices": {
	"S-01": {"packages": ["internal/version"], "contracts": ["C-01", "C-11", "C-404"]},
	"S-18": {"deliverables": ["src/references/circuit-breaker.md"], "contracts": ["C-55", "C-56"]},
	"S-20": {"contracts": ["C-59"]}
}}`
	g, err := Parse(".greenlight/GRAPH.json", []byte(graph), testContracts(t))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	tests := []struct {
		slice string
		note  string
		paths []pathCase
	}{
		{"S-01", "slice S-01 from .greenlight/GRAPH.json: 1 package, 4 paths from 2 contracts; no section in CONTRACTS.md for C-404",
			[]pathCase{
				{"internal/cmd/version.go", true}, // named in C-11's section
				{"internal/one/only.go", false},   // named in C-1's section only
				{"internal/not/a/contract.go", false},
				{"internal/cmd/install.go", false},
			}},
		{"S-18", "slice S-18 from .greenlight/GRAPH.json: 1 deliverable, 5 paths from 2 contracts",
			[]pathCase{
				{"src/agents/gl-implementer.md", true},
				{"internal/auth/session.go", true}, // "internal/auth/" named in C-56
				{"references/circuit-breaker.md", true},
				{"outside.go", false},
				{"etc/passwd", false},
			}},
		{"S-20", "slice S-20 from .greenlight/GRAPH.json: 3 paths from 1 contract",
			[]pathCase{
				{"src/commands/gl/debug.md", true},
				{".greenlight/STATE.md", true},
				{".greenlight/GRAPH.json", false}, // named, but the graph is never in scope
			}},
	}
	for _, tt := range tests {
		t.Run(tt.slice, func(t *testing.T) {
			t.Parallel()
			l := g.Lock(tt.slice)
			want := breaker.ScopeInfo{Enabled: true, Source: "graph", Note: tt.note}
			if diff := cmp.Diff(want, l.Info()); diff != "" {
				t.Errorf("Info (-want +got):\n%s", diff)
			}
			checkPaths(t, l, tt.paths)
		})
	}
}

func TestNone_Lock(t *testing.T) {
	t.Parallel()
	const note = "no slice graph at .greenlight/GRAPH.json: scope lock off"
	var nilGraph *Graph
	tests := []struct {
		name string
		src  breaker.ScopeSource
		want breaker.ScopeInfo
	}{
		{"None", None(note), breaker.ScopeInfo{Source: "none", Note: note}},
		{"nil graph", nilGraph, breaker.ScopeInfo{Source: "none", Note: "no slice graph: scope lock off"}},
		{"zero graph", &Graph{}, breaker.ScopeInfo{Source: "none", Note: "no slice graph: scope lock off"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := tt.src.Lock("S-1")
			if diff := cmp.Diff(tt.want, l.Info()); diff != "" {
				t.Errorf("Info (-want +got):\n%s", diff)
			}
			checkPaths(t, l, []pathCase{{"any/file.go", true}, {".greenlight/GRAPH.json", true}})
		})
	}
}
