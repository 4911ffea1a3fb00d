package report

import (
	"encoding/base64"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/rx"
)

// Redacted replaces every secret the Redactor finds.
const Redacted = "***"

// minSecretLen is the shortest secret value the Redactor replaces: shorter
// values would mangle ordinary text and are not credentials anyway.
const minSecretLen = 4

// tokenPattern matches a credential whose value we were not told about; hint
// is a lower-case substring every match contains, checked first because most
// strings hold none and regular expressions are slow.
type tokenPattern struct {
	hint string
	re   func() *regexp.Regexp
	repl string // keeps the first group, if any, and hides the rest
}

// tokenPatterns: GitHub tokens, bearer tokens, Authorization headers and
// passwords in URLs.
var tokenPatterns = []tokenPattern{
	{"gh", rx.Lazy(`(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}`), Redacted},
	{"bearer", rx.Lazy(`(?i)(\bbearer\s+)[A-Za-z0-9\-._~+/]{8,}=*`), "${1}" + Redacted},
	{"authorization", rx.Lazy(`(?i)(\bauthorization:\s*(?:(?:token|basic|bearer)\s+)?)[^\s"',;]+`), "${1}" + Redacted},
	{"://", rx.Lazy(`(://[^/\s:@]+:)[^/\s@]+@`), "${1}" + Redacted + "@"},
}

// markerPattern matches the opening of our comment marker in any case and
// spacing, so untrusted text can never carry it.
var markerPattern = rx.Lazy(`(?i)<!--\s*greenlight-breaker`)

// markerRemoved stands where untrusted text carried our marker.
const markerRemoved = "[marker removed]"

// Redactor hides secrets in rendered text. The zero value and a nil
// *Redactor hide GitHub token patterns only; NewRedactor adds known values.
type Redactor struct {
	secrets []string // longest first, so a secret containing another goes whole
}

// NewRedactor returns a Redactor that hides the given secret values (each
// line of a multi-line value too) besides the token patterns. Values shorter
// than four bytes are ignored.
func NewRedactor(secrets ...string) *Redactor {
	var vals []string
	for _, s := range secrets {
		vals = appendSecret(vals, s)
		vals = append(vals, encodings(s)...)
		if strings.Contains(s, "\n") {
			for _, line := range strings.Split(s, "\n") {
				vals = appendSecret(vals, strings.TrimSpace(line))
			}
		}
	}
	sort.SliceStable(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	return &Redactor{secrets: vals}
}

// encodings are the other spellings a secret leaks in: base64 of
// "x-access-token:TOKEN" (what git's http.extraheader holds), of the token
// alone, of "TOKEN:" and ":TOKEN" (basic auth), and its URL-encoded forms.
func encodings(s string) []string {
	if len(s) < minSecretLen {
		return nil
	}
	var out []string
	add := func(v string) {
		if len(v) >= minSecretLen && v != s {
			out = append(out, v)
		}
	}
	for _, raw := range []string{"x-access-token:" + s, s, s + ":", ":" + s} {
		add(base64.StdEncoding.EncodeToString([]byte(raw)))
		add(strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(raw)), "="))
		add(base64.URLEncoding.EncodeToString([]byte(raw)))
	}
	add(url.QueryEscape(s))
	add(url.PathEscape(s))
	return out
}

func appendSecret(vals []string, s string) []string {
	if len(s) < minSecretLen {
		return vals
	}
	return append(vals, s)
}

// Redact returns s with every known secret and every token pattern replaced
// by ***. It is safe to call on a nil *Redactor. A secret split by what a
// renderer drops (a control or invisible rune, a terminal escape, an HTML
// comment) would be joined again on the way out: when s read without them
// holds a secret, Redact returns that reading, redacted (see rendered).
func (r *Redactor) Redact(s string) string {
	return rendered(s, r.redact)
}

func (r *Redactor) redact(s string) string {
	if r != nil {
		for _, v := range r.secrets {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	lower := strings.ToLower(s)
	for _, p := range tokenPatterns {
		if strings.Contains(lower, p.hint) {
			s = p.re().ReplaceAllString(s, p.repl)
		}
	}
	return s
}

// NeutralizeMarker returns s with every occurrence of our comment marker's
// opening ("<!-- greenlight-breaker", any case or spacing) replaced, so that
// only the renderer ever writes the marker; like Redact, it looks through
// what a renderer drops.
func NeutralizeMarker(s string) string {
	return rendered(s, neutralizeMarker)
}

func neutralizeMarker(s string) string {
	if !strings.Contains(s, "<!--") {
		return s
	}
	return markerPattern().ReplaceAllString(s, markerRemoved)
}

// rendered returns clean(s), unless a rendering of it shows something clean
// would take out (a secret or our marker split by what the renderer
// drops): then that rendering, cleaned. The renderings are what the
// renderers make of untrusted text before they show it: control runes and
// escapes dropped (the terminal, markdown code), HTML comments removed
// first (markdown prose). A string of printable ASCII with no "<!--" has
// none but itself and costs one scan; one whose secrets show without a
// rendering is returned as clean(s) alone.
func rendered(s string, clean func(string) string) string {
	out := clean(s)
	for range 8 { // each round drops what hid something: few are needed
		if !mayRenderDifferently(out) {
			return out
		}
		changed := false
		for _, v := range []string{stripControls(out), stripControls(htmlComment().ReplaceAllString(out, ""))} {
			if c := clean(v); c != v {
				out, changed = c, true
				break
			}
		}
		if !changed {
			return out
		}
	}
	return Redacted // still hiding something after 8 rounds: none of it is shown
}

// mayRenderDifferently reports whether a renderer would drop something of
// s: a control or invisible rune (isControl; newline and tab are kept, and
// a carriage return becomes a newline) or an HTML comment. Names in other
// scripts pass with one decode of each rune.
func mayRenderDifferently(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != '\r' && isControl(rune(c)) {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if isControl(r) {
			return true
		}
		i += n
	}
	return strings.Contains(s, "<!--")
}

// Clean returns s redacted and with our marker neutralised: what every
// renderer does to an untrusted string before escaping it for its format.
func (r *Redactor) Clean(s string) string {
	return NeutralizeMarker(r.Redact(s))
}

// Decision returns a deep copy of d in which every string, however deeply
// nested, has been through Clean. Renderers call it first; callers that know
// secret values call it with their Redactor before JSON or Text.
func (r *Redactor) Decision(d breaker.Decision) breaker.Decision {
	// A decision repeats its strings (each push's head, each test's name
	// at every push): each distinct one is cleaned once.
	memo := map[string]string{}
	clean := func(s string) string {
		if c, ok := memo[s]; ok {
			return c
		}
		c := r.Clean(s)
		memo[s] = c
		return c
	}
	out := mapStrings(reflect.ValueOf(d), clean)
	return out.Interface().(breaker.Decision)
}

// mapStrings copies v, applying f to every string it holds. Structs with
// unexported fields are copied as they are (none of the domain types has any).
func mapStrings(v reflect.Value, f func(string) string) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		out := reflect.New(v.Type()).Elem()
		out.SetString(f(v.String()))
		return out
	case reflect.Struct:
		return mapStruct(v, f)
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(mapStrings(v.Index(i), f))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(mapStrings(it.Key(), f), mapStrings(it.Value(), f))
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(mapStrings(v.Elem(), f))
		return out
	default:
		return v
	}
}

func mapStruct(v reflect.Value, f func(string) string) reflect.Value {
	t := v.Type()
	for i := range t.NumField() {
		if !t.Field(i).IsExported() {
			return v
		}
	}
	out := reflect.New(t).Elem()
	for i := range t.NumField() {
		out.Field(i).Set(mapStrings(v.Field(i), f))
	}
	return out
}
