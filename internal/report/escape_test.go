package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEscapeInline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "Move the check", "Move the check"},
		{"snake case stays", "email_already_exists", "email_already_exists"},
		{"emphasis", "_a_ *b* ~c~", `\_a\_ \*b\* \~c\~`},
		{"mention", "cc @octocat", "cc @\u200doctocat"},
		{"team mention", "@github/security", "@\u200dgithub/security"},
		{"html", "</details><b>", "&lt;/details&gt;&lt;b&gt;"},
		{"entity", "&#64;octocat", "&amp;#\u200d64;octocat"},
		{"comment removed", "a<!-- hidden -->b", "ab"},
		{"comment cannot join a mention", "@<!-- x -->octocat", "@\u200doctocat"},
		// URLs become code spans: inert, every character kept (they copy intact).
		{"link", "[x](http://e.com)", "\\[x\\](`http://e.com`)"},
		{"issue ref", "fixes #12 and acme/shop#34, see GH-56", "fixes #\u200d12 and acme/shop#\u200d34, see G\u200dH-56"},
		{"issue url", "https://github.com/acme/shop/issues/7", "`https://github.com/acme/shop/issues/7`"},
		{"url in a sentence", "see https://e.com/a_b?x=1. Then @bob", "see `https://e.com/a_b?x=1`. Then @\u200dbob"},
		{"url with a backtick", "https://e.com/`x`", "`https://e.com/`\\`x\\`"}, // the URL ends at the backtick, escaped after
		{"zero-width and tag characters", "a\u200bb\U000E0041c\u2060d", "abcd"},
		{"pipe", "a|b", `a\|b`},
		{"backticks", "``x``", "\\`\\`x\\`\\`"},
		{"newlines join", "a\n\n  b\tc", "a b c"},
		{"heading", "# Fake", `\# Fake`},
		{"list", "- item", `\- item`},
		{"ordered list", "12. item", `12\. item`},
		{"workflow command", "::set-output name=x::y", `\::set-output name=x::y`},
		{"control chars", "a\x1b[31mred\x1b[0m\x00b", "aredb"},
		{"math", "$x$", `\$x\$`},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := EscapeInline(tt.in); got != tt.want {
				t.Errorf("EscapeInline(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestEscapeText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"lines kept", "one\ntwo", "one\ntwo"},
		{"blank runs collapse", "one\n\n\n\ntwo\n", "one\n\ntwo"},
		{"indent dropped", "    code?\n\tmore", "code?\nmore"},
		{"block starts escaped", "# h\n> q\n---\n1) x", "\\# h\n&gt; q\n\\---\n1\\) x"},
		{"crlf", "a\r\nb\rc", "a\nb\nc"},
		{"only blanks", "\n \n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := EscapeText(tt.in); got != tt.want {
				t.Errorf("EscapeText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCodeSpan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "go.mod", "`go.mod`"},
		{"backtick inside", "a`b", "``a`b``"},
		{"leading backtick padded", "`a", "`` `a ``"},
		{"runs", "a``b`c", "```a``b`c```"},
		{"newlines", "a\nb", "`a b`"},
		{"empty", "", "`  `"},
		{"html and mention stay literal", "</details>@x", "`</details>@x`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := CodeSpan(tt.in); got != tt.want {
				t.Errorf("CodeSpan(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCodeCell(t *testing.T) {
	t.Parallel()
	if got, want := CodeCell(`a|b\|c`), "`a\\|b\\\\|c`"; got != want {
		t.Errorf("CodeCell = %q, want %q", got, want)
	}
}

func TestCodeBlock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "FAIL\n", "```text\nFAIL\n```\n"},
		{"fence outgrows content", "````\n```", "`````text\n````\n```\n`````\n"},
		{"empty", "", "```text\n```\n"},
		{"ansi dropped", "\x1b[1mbold\x1b[0m\r\n", "```text\nbold\n```\n"},
		{"tabs kept", "a\tb", "```text\na\tb\n```\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, CodeBlock(tt.in, "text")); diff != "" {
				t.Errorf("CodeBlock(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestCodeBlock_CannotBeClosedFromInside(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"```", "````\n~~~", "  ````````  ", "x\n```\n# heading"} {
		p, err := parseMarkdown(CodeBlock(in, "") + "after\n")
		if err != nil {
			t.Fatalf("parse CodeBlock(%q): %v", in, err)
		}
		if got, want := p.blocks, []string{in}; !cmp.Equal(got, want) {
			t.Errorf("blocks = %q, want %q", got, want)
		}
		if got := p.outside; !cmp.Equal(got, []string{"after", ""}) {
			t.Errorf("outside = %q, want only the text after the block", got)
		}
	}
}
