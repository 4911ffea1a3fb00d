package scope

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that a malformed graph is one
// line, and that every lock keeps its promises: the graph file is never in
// scope when the lock is on, and the slice's test files always are.
func FuzzParse(f *testing.F) {
	f.Add(realGraphOrEmpty(f), testContracts(f))
	f.Add([]byte(`{"slices": {"S-1": {"packages": ["a/", "b.go"], "files_in_scope": ["c/", "**/*.md"], "test_files": ["t_test.go"]}}}`), []byte("## C-1\nx/y.go\n"))
	f.Add([]byte(`{"slices": [{"id": "S-1", "deliverables": ["src/x.md (update)"], "contracts": ["C-1"]}]}`), []byte("### C-1: X\n```\nsrc/y.md\n```\n"))
	f.Add([]byte(`{"slices": {"S-1": {"packages": "x"}}}`), []byte(nil))
	f.Add([]byte("{\n\"slices\": {]"), []byte("#"))
	f.Fuzz(func(t *testing.T, graph, contracts []byte) {
		g, err := Parse("g/GRAPH.json", graph, contracts)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			var pos *PositionError
			if errors.As(err, &pos) && (pos.Line < 1 || pos.Column < 1) {
				t.Errorf("position %d:%d, want both 1 or more", pos.Line, pos.Column)
			}
			return
		}
		for id, def := range g.slices {
			l := g.Lock(id)
			if !l.Info().Enabled {
				continue
			}
			if l.InScope("g/GRAPH.json") {
				t.Errorf("slice %q: the graph file is in scope", id)
			}
			for _, tf := range def.TestFiles {
				p, ok := cleanPath(strings.Trim(firstField(tf), "`\"'"))
				if ok && p != "." && p != "g/GRAPH.json" && !strings.ContainsAny(tf, "*?[{") && !l.InScope(p) {
					t.Errorf("slice %q: test file %q not in scope", id, p)
				}
			}
		}
	})
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

func realGraphOrEmpty(f *testing.F) []byte {
	data, err := readRealGraph()
	if err != nil {
		return []byte(`{"slices": {}}`)
	}
	return data
}
