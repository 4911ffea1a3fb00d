package scope

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// matcher holds the entries of one scope: plain entries match a path equal
// to them or below them, patterns match with doublestar.
type matcher struct {
	root     bool
	entries  map[string]bool
	patterns []string
}

// add takes one graph entry, with any trailing note. It reports false when
// the entry is ignored: empty, absolute, outside the repository or an
// invalid pattern.
func (m *matcher) add(raw string) bool {
	fields := strings.Fields(raw)
	if len(fields) == 0 {
		return false
	}
	entry := strings.Trim(fields[0], "`\"'")
	if strings.ContainsAny(entry, "*?[{") {
		return m.addPattern(entry)
	}
	clean, ok := cleanPath(entry)
	if !ok {
		return false
	}
	if clean == "." {
		m.root = true
		return true
	}
	if m.entries == nil {
		m.entries = make(map[string]bool)
	}
	m.entries[clean] = true
	return true
}

func (m *matcher) addPattern(pattern string) bool {
	pattern = strings.TrimPrefix(pattern, "./")
	if strings.HasSuffix(pattern, "/") {
		pattern += "**"
	}
	if strings.HasPrefix(pattern, "/") || !doublestar.ValidatePattern(pattern) {
		return false
	}
	m.patterns = append(m.patterns, pattern)
	return true
}

// match reports whether the cleaned path is the entry itself or lies below
// it, for any entry, or matches a pattern.
func (m *matcher) match(p string) bool {
	if m.root {
		return true
	}
	for q := p; ; {
		if m.entries[q] {
			return true
		}
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			break
		}
		q = q[:i]
	}
	for _, pattern := range m.patterns {
		if ok, err := doublestar.Match(pattern, p); ok && err == nil {
			return true
		}
	}
	return false
}

// cleanPath makes a repository-relative slash path canonical. It reports
// false for an empty path, an absolute one, and one that climbs out of the
// repository. "." is the repository root.
func cleanPath(p string) (string, bool) {
	if p == "" || strings.HasPrefix(p, "/") {
		return "", false
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}
