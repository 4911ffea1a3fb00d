package trailer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := tc.want
			if want == nil {
				want = [][2]string{}
			}
			if diff := cmp.Diff(want, pairs(Parse(tc.msg))); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.msg, diff)
			}
		})
	}
}

func TestParse_NoTrailersIsNil(t *testing.T) {
	t.Parallel()
	if got := Parse("subject\n\njust a body\n"); got != nil {
		t.Errorf("Parse = %#v, want nil", got)
	}
}

func TestParse_LeadingBlankLinesDoNotMatter(t *testing.T) {
	t.Parallel()
	for _, tc := range parseCases {
		if strings.HasPrefix(tc.msg, "\n") {
			continue
		}
		got, want := Parse("\n \r\n"+tc.msg), Parse(tc.msg)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Parse with leading blank lines mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestParse_ManyContinuationLines guards against quadratic folding: a value
// spread over 100,000 lines must parse in one linear pass.
func TestParse_ManyContinuationLines(t *testing.T) {
	t.Parallel()
	const n = 100_000
	msg := "subj\n\nKey: a\n" + strings.Repeat(" b\n", n)
	got := Parse(msg)
	want := []breaker.Trailer{{Key: "Key", Value: "a" + strings.Repeat(" b", n)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}
