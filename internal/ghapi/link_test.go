package ghapi

import (
	"strings"
	"testing"
)

func TestNextLink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, header, want string
	}{
		{"github first page",
			`<https://api.github.com/repositories/1000/issues?per_page=3&page=2>; rel="next", <https://api.github.com/repositories/1000/issues?per_page=3&page=5>; rel="last"`,
			"https://api.github.com/repositories/1000/issues?per_page=3&page=2"},
		{"github middle page, next not first",
			`<https://x/p?page=1>; rel="prev", <https://x/p?page=3>; rel="next", <https://x/p?page=5>; rel="last", <https://x/p?page=1>; rel="first"`,
			"https://x/p?page=3"},
		{"last page", `<https://x/p?page=4>; rel="prev", <https://x/p?page=1>; rel="first"`, ""},
		{"empty", "", ""},
		{"several rels, odd spacing and case", `<https://x/p?after=abc> ;  REL = "prev next"`, "https://x/p?after=abc"},
		{"unquoted rel", `<https://x/p?page=2>; rel=next`, "https://x/p?page=2"},
		{"no angle brackets", `https://x/p?page=2; rel="next"`, ""},
		{"nextish rel", `<https://x/p?page=2>; rel="next-page"`, ""},
		{"other param named like rel", `<https://x/p?page=2>; title="rel=next"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := nextLink(tt.header); got != tt.want {
				t.Errorf("nextLink(%q) = %q, want %q", tt.header, got, tt.want)
			}
		})
	}
}

func FuzzNextLink(f *testing.F) {
	f.Add(`<https://api.github.com/repositories/1000/issues?per_page=3&page=2>; rel="next", <https://api.github.com/repositories/1000/issues?per_page=3&page=5>; rel="last"`)
	f.Add(`<>; rel="next"`)
	f.Add(`<a>;;rel=;,<`)
	f.Add(`<x>; rel="next">`)
	f.Fuzz(func(t *testing.T, header string) {
		got := nextLink(header)
		if got != "" && !strings.Contains(header, "<"+got+">") {
			t.Errorf("nextLink(%q) = %q, not an <entry> of the header", header, got)
		}
	})
}
