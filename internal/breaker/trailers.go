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

// NeedsFiles reports whether a commit with these trailers is an attempt
// candidate whose changed paths the engine reads: it carries a non-empty
// <prefix>Test trailer. The git adapter computes changed paths only then.
func (p Policy) NeedsFiles(trailers []Trailer) bool {
	return len(TrailerValues(trailers, p.Key(TrailerTest))) > 0
}

// HasTrailer reports whether a trailer with key (compared
// case-insensitively) is present, whatever its value.
func HasTrailer(trailers []Trailer, key string) bool {
	for _, t := range trailers {
		if strings.EqualFold(strings.TrimSpace(t.Key), key) {
			return true
		}
	}
	return false
}

// TrailerValues returns the trimmed, non-empty values of every trailer
// whose key equals key case-insensitively, in order.
func TrailerValues(trailers []Trailer, key string) []string {
	var vals []string
	for _, t := range trailers {
		if !strings.EqualFold(strings.TrimSpace(t.Key), key) {
			continue
		}
		if v := strings.TrimSpace(t.Value); v != "" {
			vals = append(vals, v)
		}
	}
	return vals
}

// TrailerValue returns the last trimmed, non-empty value of key (compared
// case-insensitively); ok is false when there is none. For single-valued
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
	return p
}
