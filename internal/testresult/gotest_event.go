package testresult

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"
)

// decodeEvent reads one go test -json line into ev in a single pass: it
// validates while it decodes and notices a repeated key in the same pass.
// It reads the lines test2json writes (an object of plain ASCII keys whose
// values are strings, numbers, true, false or null); for any other line —
// a nested value, an escape in a key, a non-ASCII key, a surrogate
// escape, invalid UTF-8, a number or a boolean where a field wants a
// string, anything malformed — it returns ok false and the caller reads the
// line with encoding/json as before, so every line decodes exactly as
// json.Unmarshal and ambiguousKeys decode it. dup names the first goEvent
// field the line names twice (ambiguousKeys' answer). Written by hand
// because encoding/json validates, then decodes, and the duplicate-key
// check was a third pass over every line (issue 35); intern returns the
// string of a package or test name, so a stream's repeated names allocate
// once.
func decodeEvent(line []byte, ev *goEvent, intern func([]byte) string, scratch *[]byte) (dup string, ok bool) {
	var seen [len(goEventKeys)]bool
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return "", false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return "", skipSpace(line, i+1) == len(line)
	}
	for {
		field, j, ok := scanKey(line, i)
		if !ok {
			return "", false
		}
		if field >= 0 {
			if seen[field] && dup == "" {
				dup = goEventKeys[field]
			}
			seen[field] = true
		}
		if i, ok = scanValue(line, j, field, ev, intern, scratch); !ok {
			return "", false
		}
		i = skipSpace(line, i)
		if i >= len(line) {
			return "", false
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			return dup, skipSpace(line, i+1) == len(line)
		default:
			return "", false
		}
	}
}

// scanKey reads a key and its colon at line[i]: the key's field (-1 for
// one the breaker does not read) and where its value starts. A key is
// plain ASCII, no escapes (anything else: the slow path, which folds case
// as encoding/json does).
func scanKey(line []byte, i int) (field, next int, ok bool) {
	if i >= len(line) || line[i] != '"' {
		return 0, 0, false
	}
	start := i + 1
	for i = start; i < len(line) && line[i] != '"'; i++ {
		if c := line[i]; c == '\\' || c < 0x20 || c >= 0x80 {
			return 0, 0, false
		}
	}
	if i >= len(line) {
		return 0, 0, false
	}
	field = eventField(line[start:i])
	i = skipSpace(line, i+1)
	if i >= len(line) || line[i] != ':' {
		return 0, 0, false
	}
	i = skipSpace(line, i+1)
	return field, i, i < len(line)
}

// scanValue reads the value at line[i] of field (-1: skipped) into ev and
// says where it ends: a string, null (which leaves a string field as it
// was, as json.Unmarshal does), and for a field the breaker does not read
// a boolean or a number too; an object, an array, or a number or boolean
// in a string field is not ok (Unmarshal's error, or the slow path).
func scanValue(line []byte, i, field int, ev *goEvent, intern func([]byte) string, scratch *[]byte) (int, bool) {
	switch c := line[i]; {
	case c == '"':
		raw, end, escaped, ok := scanString(line, i)
		if ok && field >= 0 {
			setEventField(ev, field, raw, escaped, intern, scratch)
		}
		return end, ok
	case c == 'n':
		return i + 4, hasLiteral(line, i, "null")
	case field >= 0:
		return 0, false
	case c == 't' && hasLiteral(line, i, "true"):
		return i + 4, true
	case c == 'f' && hasLiteral(line, i, "false"):
		return i + 5, true
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(line, i)
	}
	return 0, false
}

// eventField is the index in goEventKeys of an ASCII key, matched without
// regard to case as encoding/json matches it; -1 for another key.
func eventField(key []byte) int {
	switch string(key) { // the keys as test2json writes them
	case "Time", "Elapsed":
		return -1
	case "Action":
		return 0
	case "Package":
		return 1
	case "Test":
		return 2
	case "Output":
		return 3
	}
	for f, name := range goEventKeys {
		if len(key) != len(name) {
			continue
		}
		match := true // the names are letters only: fold ASCII letters
		for j := range key {
			if l := key[j] | 0x20; l < 'a' || l > 'z' || l != name[j]|0x20 {
				match = false
				break
			}
		}
		if match {
			return f
		}
	}
	return -1
}

// scanString finds the string starting at line[i] == '"': its raw bytes
// between the quotes, the index past it, and whether it has escapes. ok is
// false for what the fast path leaves to encoding/json: a control
// character, a bad or surrogate escape, invalid UTF-8, no closing quote.
func scanString(line []byte, i int) (raw []byte, end int, escaped, ok bool) {
	start := i + 1
	j := start
	// Plain bytes, eight at a time: none a quote, a backslash, a control or
	// a non-ASCII byte. The first word that may hold one goes to the loop.
	for j+8 <= len(line) && plain8(binary.LittleEndian.Uint64(line[j:])) {
		j += 8
	}
	for j < len(line) {
		c := line[j]
		switch {
		case c == '"':
			return line[start:j], j + 1, escaped, true
		case c == '\\':
			if j+1 >= len(line) {
				return nil, 0, false, false
			}
			escaped = true
			switch line[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				r, ok := hex4(line, j+2)
				if !ok || utf16Surrogate(r) {
					return nil, 0, false, false
				}
				j += 6
			default:
				return nil, 0, false, false
			}
		case c < 0x20:
			return nil, 0, false, false
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(line[j:])
			if r == utf8.RuneError && size == 1 {
				return nil, 0, false, false
			}
			j += size
		}
	}
	return nil, 0, false, false
}

// plain8 reports whether none of the eight bytes in w is a quote, a
// backslash, a control character or a non-ASCII byte, with the
// bit tricks for "a byte is zero" and "a byte is less than n" (exact for
// the word as a whole, which is all this asks).
func plain8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(x uint64) uint64 { return (x - ones) & ^x & highs }
	special := w & highs                    // non-ASCII
	special |= (w - 0x20*ones) & ^w & highs // a control character
	special |= zero(w^'"'*ones) | zero(w^'\\'*ones)
	return special == 0
}

// setEventField decodes a string value into the event's field.
func setEventField(ev *goEvent, field int, raw []byte, escaped bool, intern func([]byte) string, scratch *[]byte) {
	if escaped {
		raw = unescapeJSON(raw, (*scratch)[:0])
		*scratch = raw
	}
	switch goEventKeys[field] {
	case "Action":
		ev.Action = actionName(raw)
	case "Package":
		ev.Package = intern(raw)
	case "Test":
		ev.Test = intern(raw)
	case "Output":
		ev.Output = string(raw)
	case "FailedBuild":
		ev.FailedBuild = string(raw)
	case "ImportPath":
		ev.ImportPath = intern(raw)
	}
}

// actionNames are the actions test2json and go build -json write: their
// strings are shared, never allocated per event.
var actionNames = []string{"run", "pause", "cont", "pass", "bench", "fail", "output", "skip", "start",
	"build-output", "build-fail", "attr", "artifacts"}

func actionName(raw []byte) string {
	for _, a := range actionNames {
		if string(raw) == a {
			return a
		}
	}
	return string(raw)
}

// unescapeJSON decodes a JSON string's escapes (scanString accepted them: no
// surrogates) into buf.
func unescapeJSON(raw, buf []byte) []byte {
	for j := 0; j < len(raw); j++ {
		c := raw[j]
		if c != '\\' {
			buf = append(buf, c)
			continue
		}
		j++
		switch raw[j] {
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, _ := hex4(raw, j+1)
			buf = utf8.AppendRune(buf, r)
			j += 4
		default: // '"', '\\', '/'
			buf = append(buf, raw[j])
		}
	}
	return buf
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	return rune(n), err == nil
}

func utf16Surrogate(r rune) bool { return r >= 0xD800 && r < 0xE000 }

func hasLiteral(line []byte, i int, lit string) bool {
	return len(line)-i >= len(lit) && string(line[i:i+len(lit)]) == lit
}

// scanNumber checks a JSON number at line[i] and returns the index past it.
func scanNumber(line []byte, i int) (int, bool) {
	digits := func(j int) int {
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		return j
	}
	if line[i] == '-' {
		i++
	}
	switch {
	case i < len(line) && line[i] == '0':
		i++
	case i < len(line) && line[i] >= '1' && line[i] <= '9':
		i = digits(i + 1)
	default:
		return 0, false
	}
	if i < len(line) && line[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(line) && (line[i] == 'e' || line[i] == 'E') {
		i++
		if i < len(line) && (line[i] == '+' || line[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}
