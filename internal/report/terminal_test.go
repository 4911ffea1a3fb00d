package report

import "testing"

func TestSanitizeTerminal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "ok\n\tindented", "ok\n\tindented"},
		{"workflow command", "::set-output name=x::y", ": :set-output name=x::y"},
		{"indented command", "  \t::add-mask::v", "  \t: :add-mask::v"},
		{"command on a later line", "a\n::error::b", "a\n: :error::b"},
		{"nbsp before command", "\u00a0::warning::x", "\u00a0: :warning::x"},
		{"cr splits lines", "a\r::debug::x", "a\n: :debug::x"},
		{"mid-line colons kept", "a ::b", "a ::b"},
		{"legacy command", "x ##[error]y", "x # #[error]y"},
		{"csi", "\x1b[31mred\x1b[0m", "red"},
		{"osc title", "\x1b]0;pwned\x07after", "after"},
		{"c0 and c1", "a\x00\x07\u0085\u009bb", "ab"},
		{"bidi override", "a\u202eb", "ab"},
		{"control hides command", ":\x00:add-mask::x", ": :add-mask::x"},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := SanitizeTerminal(tt.in); got != tt.want {
				t.Errorf("SanitizeTerminal(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSafeLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"joins lines", "a\nb\r\nc\td", "a b c d"},
		{"command after join is mid-line", "a\n::set-output name=x::y", "a ::set-output name=x::y"},
		{"leading command", "::warning::x", ": :warning::x"},
		{"line separator", "a\u2028::x::y", "a ::x::y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := SafeLine(tt.in); got != tt.want {
				t.Errorf("SafeLine(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDefuseCommands(t *testing.T) {
	t.Parallel()
	in := "ok\n::add-mask::x\n  ::error::y\nname ##[set-output name=a]b\n{\"n\": \"::stop-commands::z\"}\n"
	want := "ok\n: :add-mask::x\n  : :error::y\nname # #[set-output name=a]b\n{\"n\": \"::stop-commands::z\"}\n"
	if got := DefuseCommands(in); got != want {
		t.Errorf("DefuseCommands:\ngot  %q\nwant %q", got, want)
	}
}

func TestEscapeControls(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain\ttab":           "plain\ttab",
		"a\x1b[31mred":         `a\x1b[31mred`,
		"two\nlines":           `two\x0alines`,
		"rtl\u202egnp.exe":     `rtl\u{202e}gnp.exe`,
		"zero\u200bwidth":      `zero\u{200b}width`,
		"bad\xffbyte":          `bad\xffbyte`,
		"caf\u00e9 \U0001f600": "caf\u00e9 \U0001f600",
	} {
		if got := EscapeControls(in); got != want {
			t.Errorf("EscapeControls(%q) = %q, want %q", in, got, want)
		}
	}
}
