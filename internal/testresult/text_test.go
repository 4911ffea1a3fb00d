package testresult

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapBuf(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("0123456789", 20<<10) // 200 KiB
	tests := []struct {
		name   string
		text   string
		chunks int
		want   string
	}{
		{"short text is kept whole", "hello", 1, "hello"},
		{"exactly the cap is kept whole", long[:MaxTextBytes], 7, long[:MaxTextBytes]},
		{"one big write keeps head and tail", long, 1, long[:headBytes] + cutNote(int64(len(long)-MaxTextBytes)) + long[len(long)-tailBytes:]},
		{"many small writes give the same", long, 997, long[:headBytes] + cutNote(int64(len(long)-MaxTextBytes)) + long[len(long)-tailBytes:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b capBuf
			size := (len(tt.text) + tt.chunks - 1) / tt.chunks
			for s := tt.text; s != ""; {
				n := min(size, len(s))
				b.writeString(s[:n])
				s = s[n:]
			}
			if got := b.String(); got != tt.want {
				t.Errorf("got %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
}

func TestCapText_KeepsUTF8Whole(t *testing.T) {
	t.Parallel()
	for _, s := range []string{strings.Repeat("é", 50<<10), strings.Repeat("日本", 20<<10), strings.Repeat("😀", 30<<10)} {
		got := capText(s)
		if !utf8.ValidString(got) || !strings.Contains(got, "bytes cut here") {
			t.Errorf("got %d bytes (valid UTF-8: %v), want valid UTF-8 with the cut said", len(got), utf8.ValidString(got))
		}
	}
}
