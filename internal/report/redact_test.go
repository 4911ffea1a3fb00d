package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/greenlight-ci/breaker/internal/breaker"
)

func TestRedactor_Redact(t *testing.T) {
	t.Parallel()
	r := NewRedactor("hunter2-secret", "", "abc", "line-one-secret\nline-two-secret")
	tests := []struct {
		name, in, want string
	}{
		{"known value", "pw=hunter2-secret;", "pw=***;"},
		{"short values ignored", "abc", "abc"},
		{"each line of a multi-line secret", "x line-two-secret y", "x *** y"},
		{"classic token", "t=" + token, "t=***"},
		{"fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "***"},
		{"installation token", "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "***"},
		{"bearer", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.x", "Authorization: Bearer ***"},
		{"token header", "Authorization: token deadbeefcafe", "Authorization: token ***"},
		{"url password", "https://x-access-token:s3cr3tvalue@github.com/o/r", "https://x-access-token:***@github.com/o/r"},
		{"prose kept", "the bearer of bad news; ghp_ is a prefix", "the bearer of bad news; ghp_ is a prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := r.Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactor_NilRedactsPatterns(t *testing.T) {
	t.Parallel()
	var r *Redactor
	if got, want := r.Redact("x "+token), "x ***"; got != want {
		t.Errorf("nil Redact = %q, want %q", got, want)
	}
}

func TestNeutralizeMarker(t *testing.T) {
	t.Parallel()
	in := "a <!-- greenlight-breaker:S-3 --> b <!--GREENLIGHT-BREAKER:x--> c <!-<!-- greenlight-breaker-- greenlight-breaker"
	got := NeutralizeMarker(in)
	if markerPattern().MatchString(got) {
		t.Errorf("NeutralizeMarker(%q) = %q, still carries a marker", in, got)
	}
	if want := "a [marker removed]:S-3 --> b [marker removed]:x--> c <!-[marker removed]-- greenlight-breaker"; got != want {
		t.Errorf("NeutralizeMarker = %q, want %q", got, want)
	}
}

// TestRedactor_DecisionReachesEveryString fills every string of a Decision,
// however nested, with a secret and checks that none survives: a field the
// engine adds later is covered without touching the renderers.
func TestRedactor_DecisionReachesEveryString(t *testing.T) {
	t.Parallel()
	var d breaker.Decision
	fill(reflect.ValueOf(&d).Elem(), "x-topsecret-x")
	orig := d
	got := NewRedactor("topsecret").Decision(d)
	var leaks []string
	walkStrings(reflect.ValueOf(got), "Decision", func(path, s string) {
		if strings.Contains(s, "topsecret") {
			leaks = append(leaks, path)
		}
	})
	if len(leaks) > 0 {
		t.Errorf("secret survived in %v", leaks)
	}
	if diff := cmp.Diff(orig, d); diff != "" {
		t.Errorf("Decision modified its input (-before +after):\n%s", diff)
	}
}

// fill sets every string to s and gives every slice one element.
func fill(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), s)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), s)
	}
}

func walkStrings(v reflect.Value, path string, f func(path, s string)) {
	switch v.Kind() {
	case reflect.String:
		f(path, v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			walkStrings(v.Field(i), path+"."+v.Type().Field(i).Name, f)
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkStrings(v.Index(i), path+"[]", f)
		}
	}
}

// TestRedactor_ASecretSplitByWhatARendererDrops splits the token and the
// known secret with each thing a renderer drops (a control rune, an
// invisible one, a terminal escape, an HTML comment): the patterns do not
// match the split text, and the renderer would join it again. No output
// may carry the secret whole, nor the marker (FuzzRenderers found the
// marker so: "<!--greenlight-BreAk\x14er").
func TestRedactor_ASecretSplitByWhatARendererDrops(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-secret-value"
	r := NewRedactor(secret)
	for _, hide := range []string{"\x14", "\u200b", "\u00ad", "\x1b[31m", "\u2066", "<!-- x -->", "\U000e0041"} {
		for _, s := range []string{token, secret} {
			split := s[:9] + hide + s[9:]
			d := untrustedDecision("before " + split + " after")
			d = r.Decision(d)
			md := Markdown(d, Options{Marker: true})
			js, err := JSON(d)
			if err != nil {
				t.Fatal(err)
			}
			for name, out := range map[string]string{"markdown": md, "text": Text(d), "json": string(js)} {
				if strings.Contains(out, s) {
					t.Errorf("%s split by %q: the %s output carries it whole", s, hide, name)
				}
			}
		}
		marker := "<!--greenlight-BreAk" + hide + "er:x"
		md := Markdown(r.Decision(untrustedDecision(marker)), Options{Marker: true})
		if got := len(markerPattern().FindAllString(md, -1)); got != 1 {
			t.Errorf("the marker split by %q: %d markers in the comment, want 1 (the renderer's)", hide, got)
		}
	}
}

func BenchmarkRedact_Names(b *testing.B) {
	names := []string{"TestLogin/handles_an_expired_session", "ログイン画面 › 期限切れのセッションを扱う", "Überprüfung der Eingabe"}
	r := NewRedactor("hunter2-secret-value")
	for b.Loop() {
		for _, n := range names {
			r.Redact(n)
		}
	}
}
