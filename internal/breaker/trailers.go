package breaker

import "strings"

// The trailer names of the protocol (DESIGN §1), without the policy's
// prefix: Policy.Key turns TrailerTest into "Greenlight-Test".
const (
	TrailerSlice      = "Slice"
	TrailerTest       = "Test"
	TrailerStrategy   = "Strategy"
	TrailerResult     = "Result"
	TrailerError      = "Error"
	TrailerJustify    = "Justify"
	TrailerInfra      = "Infra"
	TrailerHypothesis = "Hypothesis"
	TrailerQuestion   = "Question"
)

// Key returns the full trailer key of name under the policy's prefix,
// e.g. "Greenlight-Test" for TrailerTest. An empty prefix means the default.
func (p Policy) Key(name string) string {
	return p.normalized().TrailerPrefix + name
}

// NeedsFiles reports whether the engine reads a commit's changed paths:
// for every commit of the branch — the scope lock checks an attempt's, and
// the evidence diagnostic of an agent without trailers lists each push's
// (the files it changed are the agent's account of what it tried). The git
// adapter bounds them per commit.
func (p Policy) NeedsFiles([]Trailer) bool { return true }

// HasTrailer reports whether a trailer with key (compared ignoring ASCII
// case, as git does) is present, whatever its value.
func HasTrailer(trailers []Trailer, key string) bool {
	for _, t := range trailers {
		if keyEqual(strings.TrimSpace(t.Key), key) {
			return true
		}
	}
	return false
}

// TrailerValues returns the trimmed, non-empty values of every trailer
// whose key equals key ignoring ASCII case, in order. It is the one trailer
// lookup of the project.
func TrailerValues(trailers []Trailer, key string) []string {
	var vals []string
	for _, t := range trailers {
		if !keyEqual(strings.TrimSpace(t.Key), key) {
			continue
		}
		if v := strings.TrimSpace(t.Value); v != "" {
			vals = append(vals, v)
		}
	}
	return vals
}

// TrailerValue returns the last trimmed, non-empty value of key (compared
// ignoring ASCII case); ok is false when there is none. For single-valued
// keys the last one wins, as in git's own configuration files.
func TrailerValue(trailers []Trailer, key string) (value string, ok bool) {
	vals := TrailerValues(trailers, key)
	if len(vals) == 0 {
		return "", false
	}
	return vals[len(vals)-1], true
}

// normalized fills the zero fields of p from DefaultPolicy, so a partly
// filled policy never divides the world by zero or tags "checkpoint/" bare.
// Normalized is p with its zero fields given DefaultPolicy's values: the
// policy Evaluate applies.
func (p Policy) Normalized() Policy { return p.normalized() }

func (p Policy) normalized() Policy {
	d := DefaultPolicy()
	if p.Name == "" {
		p.Name = d.Name
	}
	if p.PerTestLimit <= 0 {
		p.PerTestLimit = d.PerTestLimit
	}
	if p.SliceLimit <= 0 {
		p.SliceLimit = d.SliceLimit
	}
	if p.TrailerPrefix == "" {
		p.TrailerPrefix = d.TrailerPrefix
	}
	if p.TagPrefix == "" {
		p.TagPrefix = d.TagPrefix
	}
	if p.NoProgressLimit <= 0 {
		p.NoProgressLimit = d.NoProgressLimit
	}
	return p
}

// keyEqual compares trailer keys as git does: ignoring ASCII case only, so
// a look-alike such as the Kelvin sign (U+212A) for "K" is another key.
func keyEqual(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
