package scope

import (
	"path"
	"strings"
)

// linePaths returns the tokens of one line of prose or code that look like
// repository paths, cleaned, in order.
func linePaths(line string) []string {
	var out []string
	for _, tok := range strings.FieldsFunc(line, isPathDelim) {
		tok = strings.Trim(strings.TrimRight(strings.Trim(tok, "*_"), ".!?"), "*_")
		tok = strings.TrimPrefix(tok, "./")
		if !looksLikePath(tok) {
			continue
		}
		if c, ok := cleanPath(tok); ok && c != "." {
			if strings.HasSuffix(tok, "/") {
				c += "/"
			}
			out = append(out, c)
		}
	}
	return out
}

// isPathDelim separates tokens: blanks, quotes, brackets and the
// punctuation that surrounds a path in prose, code and tables.
func isPathDelim(r rune) bool {
	switch r {
	case ' ', '\t', '\r', '`', '"', '\'', '(', ')', '[', ']', ',', ';', ':', '|', '=':
		return true
	}
	return false
}

// looksLikePath accepts a relative slash path made of letters, digits and
// . _ - whose last element has an extension, or which ends in a slash.
func looksLikePath(tok string) bool {
	if !strings.Contains(tok, "/") || strings.HasPrefix(tok, "/") || strings.Contains(tok, "//") {
		return false
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if !isAlnum(c) && c != '.' && c != '_' && c != '-' && c != '/' {
			return false
		}
	}
	if strings.HasSuffix(tok, "/") {
		return strings.Trim(tok, "./") != ""
	}
	base := path.Base(tok)
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 {
		return false
	}
	return strings.IndexFunc(base[dot+1:], func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}) >= 0
}
