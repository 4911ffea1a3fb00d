package report

import (
	"bytes"
	"fmt"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// escapeControlsByByte is escapeControls written a byte at a time, as it
// was before it copied runs of plain ASCII whole: the reference.
func escapeControlsByByte(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == 0x7f:
			out = append(out, `\u007f`...)
		case b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f:
			out = fmt.Appendf(out, `\u%04x`, b[i+1])
			i++
		case b[i] >= 0xe2 && b[i] <= 0xf3:
			r, n := utf8.DecodeRune(b[i:])
			if n > 1 && invisible(r) {
				if r > 0xffff {
					r1, r2 := utf16.EncodeRune(r)
					out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
				} else {
					out = fmt.Appendf(out, `\u%04x`, r)
				}
				i += n - 1
				continue
			}
			out = append(out, b[i])
		default:
			out = append(out, b[i])
		}
	}
	return out
}

// FuzzEscapeControls: the run-copying escape writes what the byte-at-a-time
// reference writes, for any bytes.
func FuzzEscapeControls(f *testing.F) {
	for _, s := range []string{"", "plain", "a\x7fb", "\u0085x", "zero\u200bwidth", "tag\U000E0041s", "\xc2", "\xe2\x80", "ascii then é and \u202e"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := escapeControlsByByte(b)
		got := escapeControls(append([]byte(nil), b...))
		if !bytes.Equal(got, want) {
			t.Fatalf("escapeControls(%q) = %q, want %q", b, got, want)
		}
	})
}
