package scope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Graph is a parsed slice graph. It implements breaker.ScopeSource; the zero
// value and a nil *Graph give locks that are off.
type Graph struct {
	name      string
	exclude   string // the graph file, cleaned; never in scope
	slices    map[string]sliceDef
	contracts map[string][]string // contract id → paths; nil without a contracts document
}

// sliceDef is the part of a GRAPH.json slice the scope lock reads.
type sliceDef struct {
	ID           string    `json:"id"` // only in the array form of "slices"
	Packages     []string  `json:"packages"`
	Deliverables []string  `json:"deliverables"`
	FilesInScope *[]string `json:"files_in_scope"` // nil: absent or null; empty: nothing
	TestFiles    []string  `json:"test_files"`
	Contracts    []string  `json:"contracts"`
}

// PositionError is a malformed graph: the file, the 1-based line and byte
// column where decoding stopped, and what is wrong there.
type PositionError struct {
	File   string
	Line   int
	Column int
	Msg    string
	Err    error // the *json.SyntaxError or *json.UnmarshalTypeError
}

// Error renders the error on one line as file:line:column: message.
func (e *PositionError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// Unwrap returns the JSON decoder's error.
func (e *PositionError) Unwrap() error { return e.Err }

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parse reads a Greenlight slice graph named name (the repository-relative
// path it was read from, used in messages and excluded from every scope) and,
// when contracts is not empty, the CONTRACTS.md document beside it. The
// graph's "slices" is an object keyed by slice id, or an array of objects
// carrying an "id". A graph that is not valid JSON, or whose slices have
// fields of the wrong type, is a *PositionError; a graph without "slices" is
// an error too.
func Parse(name string, graph, contracts []byte) (*Graph, error) {
	data := bytes.TrimPrefix(graph, utf8BOM)
	var top struct {
		Slices json.RawMessage `json:"slices"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, positionError(name, data, err)
	}
	raw := bytes.TrimSpace(top.Slices)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, fmt.Errorf("%s: no \"slices\" in the slice graph", name)
	}
	slices, err := decodeSlices(data, raw[0] == '[')
	if err != nil {
		return nil, positionError(name, data, err)
	}
	g := &Graph{name: name, slices: slices}
	if c, ok := cleanPath(name); ok {
		g.exclude = c
	}
	if len(contracts) > 0 {
		g.contracts = parseContracts(contracts)
	}
	return g, nil
}

// decodeSlices decodes the whole document again, so that error offsets
// count from the start of the file.
func decodeSlices(data []byte, isArray bool) (map[string]sliceDef, error) {
	if !isArray {
		var doc struct {
			Slices map[string]sliceDef `json:"slices"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, err
		}
		return doc.Slices, nil
	}
	var doc struct {
		Slices []sliceDef `json:"slices"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	slices := make(map[string]sliceDef, len(doc.Slices))
	for _, s := range doc.Slices {
		if _, dup := slices[s.ID]; s.ID != "" && !dup {
			slices[s.ID] = s
		}
	}
	return slices, nil
}

// positionError places a JSON decoding error in the file. Errors without an
// offset are wrapped with the file name only.
func positionError(name string, data []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		line, col := position(data, syntax.Offset)
		return &PositionError{File: name, Line: line, Column: col, Msg: syntax.Error(), Err: err}
	case errors.As(err, &typ):
		line, col := position(data, valueStart(data, typ.Offset))
		return &PositionError{File: name, Line: line, Column: col, Msg: typeMessage(typ), Err: err}
	default:
		return fmt.Errorf("%s: %w", name, err)
	}
}

// position turns the decoder's offset (bytes read when it stopped) into the
// 1-based line and byte column of the last byte read.
func position(data []byte, offset int64) (line, col int) {
	at := int(min(max(offset, 1), int64(len(data)))) - 1
	if at < 0 {
		return 1, 1
	}
	line = 1 + bytes.Count(data[:at], []byte("\n"))
	col = at - bytes.LastIndexByte(data[:at], '\n')
	return line, col
}

// valueStart moves the offset of a type error, which the decoder reports
// after a string, number or literal, back to that value's first byte, so
// that the position points at the value rather than past it.
func valueStart(data []byte, offset int64) int64 {
	at := int(min(max(offset, 1), int64(len(data)))) - 1
	if at < 0 {
		return offset
	}
	if data[at] == '"' {
		for i := at - 1; i >= 0; i-- {
			if data[i] == '"' && (i == 0 || data[i-1] != '\\') {
				return int64(i + 1)
			}
		}
		return offset
	}
	if !isLiteral(data[at]) {
		return offset
	}
	i := at
	for i > 0 && isLiteral(data[i-1]) {
		i--
	}
	return int64(i + 1)
}

func isLiteral(c byte) bool {
	return isAlnum(c) || c == '-' || c == '+' || c == '.'
}

// typeMessage says which field had which JSON type, in JSON words.
func typeMessage(e *json.UnmarshalTypeError) string {
	field := e.Field
	if rest, ok := strings.CutPrefix(field, "slices."); ok {
		field = "slices.*." + rest // the decoder leaves the slice id out
	}
	if field == "" {
		field = "the graph"
	}
	return fmt.Sprintf("%s: got a JSON %s, want %s", field, e.Value, jsonKind(e.Type))
}

// jsonKind names the JSON shape a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array of " + plural(jsonKind(t.Elem()))
	case reflect.Pointer:
		return jsonKind(t.Elem())
	default:
		return "a " + t.Kind().String()
	}
}

// plural turns "a string" into "strings" and "an array of strings" into
// "arrays of strings".
func plural(kind string) string {
	if rest, ok := strings.CutPrefix(kind, "an array of "); ok {
		return "arrays of " + rest
	}
	for _, article := range []string{"a ", "an "} {
		if rest, ok := strings.CutPrefix(kind, article); ok {
			return rest + "s"
		}
	}
	return kind
}
