package trailer

import "github.com/greenlight-ci/breaker/internal/breaker"

// Values returns the values of every trailer in ts whose key equals key,
// ignoring ASCII case, in message order. It returns nil when there is none.
func Values(ts []breaker.Trailer, key string) []string {
	var out []string
	for _, t := range ts {
		if equalFold(t.Key, key) {
			out = append(out, t.Value)
		}
	}
	return out
}

// Value returns the value of the last trailer in ts whose key equals key,
// ignoring ASCII case, and whether there is one. The last one wins, so a
// later line corrects an earlier one.
func Value(ts []breaker.Trailer, key string) (string, bool) {
	for i := len(ts) - 1; i >= 0; i-- {
		if equalFold(ts[i].Key, key) {
			return ts[i].Value, true
		}
	}
	return "", false
}

// equalFold reports whether a and b are equal under ASCII case folding, the
// comparison git uses for trailer keys.
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
