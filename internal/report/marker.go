package report

import "strings"

// markerPrefix opens every marker; markerPattern recognises it in any case.
const markerPrefix = "<!-- greenlight-breaker:"

// Marker returns the hidden HTML comment that identifies the breaker's
// sticky comment for a slice: <!-- greenlight-breaker:{slice} -->. Runes of
// slice outside [A-Za-z0-9._-] become "_", runs of "-" become one (a
// comment may not contain "--"), and an empty slice is "_", so the marker is
// always one well-formed comment. A token in the slice name (the agent names
// slices) is redacted first: the marker is hidden, not secret.
func Marker(slice string) string {
	return markerPrefix + markerSlice(slice) + " -->"
}

func markerSlice(slice string) string {
	if slice == "" {
		return "_"
	}
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		case r == '.' || r == '_' || r == '-':
			return r
		}
		return '_'
	}, (*Redactor)(nil).Redact(slice))
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	return s
}

// HasMarker reports whether body is a breaker comment for slice: its first
// non-blank line starts with Marker(slice). A marker anywhere else (quoted in
// a reply, pasted into a human's comment) does not count.
func HasMarker(body, slice string) bool {
	body = strings.TrimLeft(body, " \t\r\n\ufeff")
	return strings.HasPrefix(body, Marker(slice))
}
