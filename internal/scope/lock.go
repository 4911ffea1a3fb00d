package scope

import (
	"fmt"
	"sort"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// Scope sources, as reported in breaker.ScopeInfo.Source.
const (
	SourceFilesInScope = "files_in_scope"
	SourceGraph        = "graph"
	SourceNone         = "none"
)

var _ breaker.ScopeSource = (*Graph)(nil)

// lock is one slice's scope lock. A lock that is off allows every path.
type lock struct {
	info    breaker.ScopeInfo
	exclude string
	m       matcher
}

// Info describes the lock: whether it is on, what it was built from.
func (l *lock) Info() breaker.ScopeInfo { return l.info }

// InScope reports whether the repository-relative path may change without a
// justification. Every path is in scope when the lock is off; the graph file
// itself never is when it is on.
func (l *lock) InScope(p string) bool {
	if !l.info.Enabled {
		return true
	}
	c, ok := cleanPath(p)
	if !ok || c == "." || c == l.exclude {
		return false
	}
	return l.m.match(c)
}

func off(note string) *lock {
	return &lock{info: breaker.ScopeInfo{Source: SourceNone, Note: note}}
}

// none is a scope source without a graph.
type none string

func (n none) Lock(string) breaker.ScopeLock { return off(string(n)) }

// None returns a breaker.ScopeSource whose locks are all off, with the
// given note, for a repository without a slice graph; for example
// None("no slice graph at .greenlight/GRAPH.json: scope lock off").
func None(note string) breaker.ScopeSource { return none(note) }

// Slices are the slice ids the graph defines, sorted.
func (g *Graph) Slices() []string {
	if g == nil {
		return nil
	}
	out := make([]string, 0, len(g.slices))
	for id := range g.slices {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Lock returns the scope lock of the slice. A slice that is not in the
// graph, or that names no packages, deliverables, test files, contract paths
// or files_in_scope list, gets a lock that is off and a note saying why.
func (g *Graph) Lock(slice string) breaker.ScopeLock {
	switch {
	case g == nil || g.slices == nil:
		return off("no slice graph: scope lock off")
	case slice == "":
		return off(fmt.Sprintf("no slice id to look up in %s: scope lock off", g.name))
	}
	def, ok := g.slices[slice]
	if !ok {
		return off(fmt.Sprintf("slice %s is not in %s: scope lock off", slice, g.name))
	}
	if def.FilesInScope != nil {
		return g.overrideLock(slice, def)
	}
	return g.graphLock(slice, def)
}

// tally adds a list of entries to a lock and counts what was taken.
type tally struct {
	l       *lock
	ignored int
}

func (t *tally) add(entries []string) int {
	n := 0
	for _, e := range entries {
		if t.l.m.add(e) {
			n++
		} else {
			t.ignored++
		}
	}
	return n
}

// overrideLock builds a lock from files_in_scope and the test files only.
func (g *Graph) overrideLock(slice string, def sliceDef) *lock {
	t := tally{l: &lock{exclude: g.exclude}}
	tests := t.add(def.TestFiles)
	n := t.add(*def.FilesInScope)
	var note string
	if len(*def.FilesInScope) == 0 {
		note = fmt.Sprintf("files_in_scope of slice %s in %s is empty: %s", slice, g.name,
			onlyTests(tests))
	} else {
		note = fmt.Sprintf("files_in_scope of slice %s in %s: %s", slice, g.name,
			join(count(n, "entry", "entries"), count(tests, "test file", "test files")))
	}
	t.l.info = breaker.ScopeInfo{Enabled: true, Source: SourceFilesInScope, Note: note + ignoredNote(t.ignored)}
	return t.l
}

func onlyTests(n int) string {
	if n == 0 {
		return "nothing is in scope"
	}
	return "only its " + count(n, "test file is", "test files are") + " in scope"
}

// graphLock builds a lock from packages, deliverables, test files and the
// paths named in the slice's contracts.
func (g *Graph) graphLock(slice string, def sliceDef) *lock {
	t := tally{l: &lock{exclude: g.exclude}}
	pkgs := t.add(def.Packages)
	dels := t.add(def.Deliverables)
	tests := t.add(def.TestFiles)
	paths, found, missing := g.contractPaths(def.Contracts)
	cpaths := t.add(paths)
	if pkgs+dels+tests+cpaths == 0 {
		return off(fmt.Sprintf("slice %s in %s names no packages, deliverables, test files or contract paths: scope lock off",
			slice, g.name) + ignoredNote(t.ignored))
	}
	note := fmt.Sprintf("slice %s from %s: %s", slice, g.name, join(
		count(pkgs, "package", "packages"),
		count(dels, "deliverable", "deliverables"),
		count(tests, "test file", "test files"),
		contractCount(cpaths, found),
	))
	if len(missing) > 0 {
		note += "; no section in CONTRACTS.md for " + listSome(missing, 3)
	}
	t.l.info = breaker.ScopeInfo{Enabled: true, Source: SourceGraph, Note: note + ignoredNote(t.ignored)}
	return t.l
}

// contractPaths gathers the paths of the named contracts; found counts the
// contracts that have a section, missing lists those that do not. Without a
// contracts document there is nothing to find and nothing missing.
func (g *Graph) contractPaths(ids []string) (paths []string, found int, missing []string) {
	if g.contracts == nil {
		return nil, 0, nil
	}
	for _, id := range ids {
		p, ok := g.contracts[id]
		if !ok {
			missing = append(missing, id)
			continue
		}
		found++
		paths = append(paths, p...)
	}
	return paths, found, missing
}

func contractCount(paths, contracts int) string {
	if paths == 0 {
		return ""
	}
	return count(paths, "path", "paths") + " from " + count(contracts, "contract", "contracts")
}

func ignoredNote(n int) string {
	if n == 0 {
		return ""
	}
	return " (" + count(n, "entry", "entries") + " ignored: empty, absolute, outside the repository or a bad pattern)"
}

// count renders "1 package" or "3 packages", and "" for zero.
func count(n int, one, many string) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// listSome lists up to max items and counts the rest.
func listSome(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:max], ", "), len(items)-max)
}

// join lists the non-empty parts with commas.
func join(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return "nothing"
	}
	return strings.Join(kept, ", ")
}
