package scope

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseContracts_Testdata(t *testing.T) {
	t.Parallel()
	got := parseContracts(testContracts(t))
	want := map[string][]string{
		"S-01": {"internal/not/a/contract.go"},
		"C-01": {"internal/version/", "internal/version/info.go", "internal/version/info_test.go"},
		"C-11": {"internal/cmd/version.go"},
		"C-1":  {"internal/one/only.go"},
		"S-18": nil,
		"C-55": {"src/agents/gl-implementer.md", "references/circuit-breaker.md"},
		"C-56": {"internal/auth/", "internal/middleware/auth.go", "src/references/circuit-breaker.md"},
		"S-20": nil,
		"C-59": {"src/commands/gl/debug.md", ".greenlight/STATE.md", ".greenlight/GRAPH.json"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseContracts (-want +got):\n%s", diff)
	}
}

func TestParseContracts_Sections(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		want map[string][]string
	}{
		{"a higher heading ends the section",
			"### C-1\na/x.go\n## Other\nb/y.go\n", map[string][]string{"C-1": {"a/x.go"}}},
		{"a deeper heading does not",
			"## C-2\n#### Detail\na/x.go\n", map[string][]string{"C-2": {"a/x.go"}}},
		{"a heading inside a fence is code",
			"### C-3\n~~~sh\n## C-4 not a heading\n~~~\nz/w.md\n",
			map[string][]string{"C-3": {"z/w.md"}}},
		{"a longer fence needs a longer close",
			"### C-5\n````\n```\n### C-6\n````\nq/r.md\n",
			map[string][]string{"C-5": {"q/r.md"}}},
		{"a repeated id gathers both sections",
			"## C-7\na/a.go\n## C-8\nb/b.go\n## C-7 (revised)\nc/c.go\na/a.go\n",
			map[string][]string{"C-7": {"a/a.go", "c/c.go"}, "C-8": {"b/b.go"}}},
		{"headings need a blank after the hashes",
			"#C-9\nx/y.go\n####### C-10\nx/z.go\n", map[string][]string{}},
		{"an unclosed fence runs to the end",
			"## C-11\n```\nk/l.go\n", map[string][]string{"C-11": {"k/l.go"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, parseContracts([]byte(tt.doc))); diff != "" {
				t.Errorf("parseContracts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHeadingID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want string
	}{
		{"C-12: RunInstall", "C-12"},
		{"C-12", "C-12"},
		{"C-12. RunInstall", "C-12"},
		{"**C-12**: RunInstall", "C-12"},
		{"`C-12` RunInstall", "C-12"},
		{"Contract C-12 — RunInstall", "C-12"},
		{"contract: C-12", ""}, // "contract:" is no id and has no digit
		{"Contract Index", ""},
		{"S-04: Install", "S-04"},
		{"Überblick 1", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			if got := headingID(tt.text); got != tt.want {
				t.Errorf("headingID(%q): got %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestLinePaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want []string
	}{
		{"create `src/users/service.ts`", []string{"src/users/service.ts"}},
		{"AGENT UPDATE: src/agents/gl-implementer.md — REWRITE", []string{"src/agents/gl-implementer.md"}},
		{"(file: internal/cmd/version.go).", []string{"internal/cmd/version.go"}},
		{`["internal/auth/", "./x/y.go"]`, []string{"internal/auth/", "x/y.go"}},
		{"**docs/a.md**, docs/b.md; docs/c.md!", []string{"docs/a.md", "docs/b.md", "docs/c.md"}},
		{"--out=build/report.xml", []string{"build/report.xml"}},
		{"I/O and/or TD-1/UD-1, v1.2/3", nil},
		{"git tag greenlight/checkpoint/{slice_id}", nil},
		{"greenlight/checkpoint/S-18", nil},
		{"https://example.com/a/b.md /etc/hosts ../up/x.go <dir>/x.go", nil},
		{"a//b.go src/**/x.go ./ ../", nil},
		{"1/2.5 ratio", nil},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, linePaths(tt.line)); diff != "" {
				t.Errorf("linePaths(%q) (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}
