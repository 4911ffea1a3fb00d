package ghfake

import (
	"fmt"
	"math"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// The fake answers GraphQL by executing the query it receives over a
// small object graph built from its state, so the answer has exactly the
// shape the query asks for, as GitHub's does: a field GitHub has but the
// graph lacks is a test bug (reported), a connection without first/last
// or over 100 is GitHub's error. The query's validity against GitHub's
// schema is checked by a test of its own (ghapi's schema test).
//
// An object is a map; a field's value is a value, or a resolver taking
// the field's arguments. Connections are built by conn.

// resolver computes a field from its arguments.
type resolver func(args map[string]any) (any, *gqlError)

// gqlError is one entry of a response's "errors", shaped as GitHub's: a
// type (NOT_FOUND, FORBIDDEN, RATE_LIMITED, ...), a message and the path.
type gqlError struct {
	Type    string `json:"type,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	Path    []any  `json:"path,omitempty"`
}

// execution is one query being answered.
type execution struct {
	doc    *ast.QueryDocument
	vars   map[string]any
	errors []*gqlError
	// missing records fields the graph does not know: a test bug.
	missing []string
}

// execute parses query and resolves its operation over root.
func execute(query string, vars map[string]any, root map[string]any) (map[string]any, []*gqlError, []string, error) {
	doc, err := parser.ParseQuery(&ast.Source{Name: "query", Input: query})
	if err != nil {
		return nil, nil, nil, err
	}
	if len(doc.Operations) != 1 {
		return nil, nil, nil, fmt.Errorf("want one operation, got %d", len(doc.Operations))
	}
	ex := &execution{doc: doc, vars: vars}
	data := ex.object(doc.Operations[0].SelectionSet, root, nil)
	return data, ex.errors, ex.missing, nil
}

// object resolves a selection set over one object.
func (ex *execution) object(sel ast.SelectionSet, obj map[string]any, path []any) map[string]any {
	out := map[string]any{}
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			out[key] = ex.field(s, obj, append(append([]any(nil), path...), key))
		case *ast.InlineFragment:
			if s.TypeCondition == "" || s.TypeCondition == obj["__typename"] {
				for k, v := range ex.object(s.SelectionSet, obj, path) {
					out[k] = v
				}
			}
		case *ast.FragmentSpread:
			if f := ex.doc.Fragments.ForName(s.Name); f != nil && f.TypeCondition == obj["__typename"] {
				for k, v := range ex.object(f.SelectionSet, obj, path) {
					out[k] = v
				}
			}
		}
	}
	return out
}

// field resolves one field of obj.
func (ex *execution) field(f *ast.Field, obj map[string]any, path []any) any {
	v, ok := obj[f.Name]
	if !ok {
		ex.missing = append(ex.missing, fmt.Sprintf("%v.%s", obj["__typename"], f.Name))
		return nil
	}
	if r, ok := v.(resolver); ok {
		args := map[string]any{}
		for _, a := range f.Arguments {
			val, err := a.Value.Value(ex.vars)
			if err != nil {
				ex.errors = append(ex.errors, &gqlError{Message: err.Error(), Path: path})
				return nil
			}
			args[a.Name] = val
		}
		var gerr *gqlError
		v, gerr = r(args)
		if gerr != nil {
			gerr.Path = path
			ex.errors = append(ex.errors, gerr)
			return nil
		}
	}
	return ex.value(f.SelectionSet, v, path)
}

func (ex *execution) value(sel ast.SelectionSet, v any, path []any) any {
	switch v := v.(type) {
	case map[string]any:
		if len(sel) == 0 {
			return v
		}
		return ex.object(sel, v, path)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = ex.value(sel, x, append(append([]any(nil), path...), i))
		}
		return out
	}
	return v
}

// maxPage is GitHub's cap on first and last.
const maxPage = 100

// conn builds a connection field over items (computed when asked): first
// with after, or last with before, as GitHub pages, with totalCount,
// pageInfo, nodes and edges. Cursors are positions.
func conn(name string, items func(args map[string]any) []any) resolver {
	return func(args map[string]any) (any, *gqlError) {
		first, hasFirst := intArg(args["first"])
		last, hasLast := intArg(args["last"])
		switch {
		case !hasFirst && !hasLast:
			return nil, &gqlError{Type: "MISSING_PAGINATION_BOUNDARIES",
				Message: fmt.Sprintf("You must provide a `first` or `last` value to properly paginate the `%s` connection.", name)}
		case hasFirst && (first < 0 || first > maxPage):
			return nil, &gqlError{Type: "EXCESSIVE_PAGINATION",
				Message: fmt.Sprintf("Requesting %d records on the `%s` connection exceeds the `first` limit of %d records.", first, name, maxPage)}
		case hasLast && (last < 0 || last > maxPage):
			return nil, &gqlError{Type: "EXCESSIVE_PAGINATION",
				Message: fmt.Sprintf("Requesting %d records on the `%s` connection exceeds the `last` limit of %d records.", last, name, maxPage)}
		}
		all := items(args)
		lo, hi := 0, len(all)
		if c, ok := cursor(args["after"]); ok {
			lo = min(c+1, hi)
		}
		if c, ok := cursor(args["before"]); ok {
			hi = max(min(c, hi), lo)
		}
		if hasFirst {
			hi = min(hi, lo+first)
		}
		if hasLast {
			lo = max(lo, hi-last)
		}
		nodes := make([]any, 0, hi-lo)
		edges := make([]any, 0, hi-lo)
		for i := lo; i < hi; i++ {
			nodes = append(nodes, all[i])
			edges = append(edges, map[string]any{"__typename": "Edge", "cursor": strconv.Itoa(i), "node": all[i]})
		}
		info := map[string]any{"__typename": "PageInfo", "hasNextPage": hi < len(all), "hasPreviousPage": lo > 0,
			"startCursor": nil, "endCursor": nil}
		if hi > lo {
			info["startCursor"], info["endCursor"] = strconv.Itoa(lo), strconv.Itoa(hi-1)
		}
		return map[string]any{"__typename": "Connection", "totalCount": len(all), "pageInfo": info, "nodes": nodes, "edges": edges}, nil
	}
}

func cursor(v any) (int, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// intArg reads a number argument, a literal (int64) or a variable (JSON).
func intArg(v any) (int, bool) {
	switch n := v.(type) {
	case int64:
		return int(n), true
	case int:
		return n, true
	case float64:
		return int(n), true
	}
	return 0, false
}

// queryCost is the rate-limit cost of a query by GitHub's published
// calculation ("Calculating a rate limit score before running the call",
// docs.github.com/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api):
// add up the requests each connection needs, assuming every connection
// reaches its first/last limit, so a connection costs the product of the
// limits of the connections above it; divide by 100 and round; at least 1.
func queryCost(query string, vars map[string]any) (cost, requests int, err error) {
	doc, err := parser.ParseQuery(&ast.Source{Name: "query", Input: query})
	if err != nil {
		return 0, 0, err
	}
	var walk func(sel ast.SelectionSet, mult int)
	walk = func(sel ast.SelectionSet, mult int) {
		for _, s := range sel {
			switch s := s.(type) {
			case *ast.Field:
				limit := 0
				for _, a := range s.Arguments {
					if a.Name == "first" || a.Name == "last" {
						if v, err := a.Value.Value(vars); err == nil {
							if n, ok := intArg(v); ok {
								limit = n
							}
						}
					}
				}
				if limit > 0 {
					requests += mult
					walk(s.SelectionSet, mult*limit)
				} else {
					walk(s.SelectionSet, mult)
				}
			case *ast.InlineFragment:
				walk(s.SelectionSet, mult)
			case *ast.FragmentSpread:
				if f := doc.Fragments.ForName(s.Name); f != nil {
					walk(f.SelectionSet, mult)
				}
			}
		}
	}
	for _, op := range doc.Operations {
		walk(op.SelectionSet, 1)
	}
	return max(1, int(math.Round(float64(requests)/100))), requests, nil
}
