package testresult

import (
	"strconv"
	"strings"
)

// applyYAML attaches a TAP YAML diagnostics block to t: the block itself is
// the output of a failing test; "message", "file" and "line" keys (at any
// depth, the first of each) fill Message, File and Line; without a
// "message", node:test's "error" (or "cause") gives the Message. Only plain, quoted
// and literal block (|) scalars are read; this is not a YAML parser.
func applyYAML(t *Test, block string) {
	if t.Status.Failed() {
		t.Output = block
	}
	lines := strings.Split(block, "\n")
	for i, l := range lines {
		key, val, ok := strings.Cut(strings.TrimSpace(l), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "message":
			if t.Message == "" {
				t.Message = capText(yamlScalar(val, lines[i+1:], indentOf(l)))
			}
		case "error", "cause": // node:test's reporter
			if t.Message == "" {
				t.Message = capText(firstLine(yamlScalar(val, lines[i+1:], indentOf(l))))
			}
		case "file":
			if t.File == "" {
				t.File = capText(yamlScalar(val, nil, 0))
			}
		case "line":
			if t.Line == 0 {
				t.Line, _ = strconv.Atoi(yamlScalar(val, nil, 0))
			}
		}
	}
}

// yamlScalar reads a scalar value: quoted, plain, or a literal/folded block
// whose lines follow, indented deeper than the key.
func yamlScalar(val string, next []string, indent int) string {
	switch {
	case strings.HasPrefix(val, `"`):
		if s, err := strconv.Unquote(val); err == nil {
			return s
		}
		return strings.Trim(val, `"`)
	case strings.HasPrefix(val, "'"):
		return strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(val, "'"), "'"), "''", "'")
	case strings.HasPrefix(val, "|") || strings.HasPrefix(val, ">"):
		var b []string
		for _, l := range next {
			if strings.TrimSpace(l) != "" && indentOf(l) <= indent {
				break
			}
			b = append(b, strings.TrimSpace(l))
		}
		return strings.TrimRight(strings.Join(b, "\n"), "\n")
	}
	return val
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
