package testresult

import (
	"encoding/json"
	"strings"
)

// goEventKeys are the goEvent fields, as encoding/json matches them.
var goEventKeys = [...]string{"Action", "Package", "Test", "Output", "FailedBuild", "ImportPath"}

// ambiguousKeys returns the goEvent field that the JSON object in line names
// more than once, or "" when none does. encoding/json lets the last
// occurrence win and folds case (Unicode simple folding, so "Teſt" is
// "Test"), which lets a crafted line read one way to a reviewer and another
// to the parser. line must already be valid JSON (json.Unmarshal accepted
// it); the scan is a single pass that skips values without decoding them,
// so the common, unambiguous line costs little next to Unmarshal itself.
// Written by hand because encoding/json offers no duplicate-key hook before
// v2 and its token API allocates per token.
func ambiguousKeys(line []byte) string {
	var seen [len(goEventKeys)]bool
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return ""
	}
	i++
	for {
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != '"' {
			return ""
		}
		end := skipString(line, i)
		if end-1 <= i || line[end-1] != '"' {
			return "" // unterminated: Unmarshal would have refused the line
		}
		key := line[i+1 : end-1]
		for f, name := range goEventKeys {
			if keyMatches(key, line[i:end], name) {
				if seen[f] {
					return name
				}
				seen[f] = true
			}
		}
		i = skipSpace(line, end)
		if i >= len(line) || line[i] != ':' {
			return ""
		}
		i = skipValue(line, skipSpace(line, i+1))
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != ',' {
			return ""
		}
		i++
	}
}

// keyMatches reports whether the raw key (quoted is the same key with its
// quotes) names field the way encoding/json would match it.
func keyMatches(raw, quoted []byte, field string) bool {
	plain := true
	for _, c := range raw {
		if c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return len(raw) == len(field) && strings.EqualFold(string(raw), field)
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return false
	}
	return strings.EqualFold(s, field)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}
