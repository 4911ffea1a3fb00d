package trailer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// FuzzParse checks what must hold for any message: Parse never panics, keys
// are git keys, values are trimmed single lines, and writing the trailers back
// as a plain trailer block gives the same trailers again.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.msg)
	}
	f.Add(genMessage(newRand(1)))
	f.Add(genNoise(newRand(2)))
	f.Fuzz(func(t *testing.T, msg string) {
		got := Parse(msg)
		for _, tr := range got {
			if !isKey(tr.Key) {
				t.Errorf("Parse(%q): key %q is not letters, digits and hyphens", msg, tr.Key)
			}
			if strings.Contains(tr.Value, "\n") || trimSpace(tr.Value) != tr.Value {
				t.Errorf("Parse(%q): value %q is not a trimmed single line", msg, tr.Value)
			}
		}
		if diff := cmp.Diff(got, Parse(rebuild(got))); diff != "" {
			t.Errorf("Parse(%q) does not survive a rebuild (-first +rebuilt):\n%s", msg, diff)
		}
	})
}

// rebuild writes trailers back as a message whose last paragraph is exactly
// those trailers.
func rebuild(ts []breaker.Trailer) string {
	var b strings.Builder
	b.WriteString("subject\n\n")
	for _, t := range ts {
		b.WriteString(t.Key + ": " + t.Value + "\n")
	}
	return b.String()
}

func isKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isAlnum(k[i]) && k[i] != '-' {
			return false
		}
	}
	return true
}
