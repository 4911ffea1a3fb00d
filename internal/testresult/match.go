package testresult

import "strings"

// Match returns the tests a Greenlight-Test trailer name designates. The
// forms are tried in this order, and the first that matches anything wins:
//
//  1. the full name: "classname.name", "package.TestName", or the name
//     alone for a test without classname (TAP, bare JUnit cases);
//  2. a qualified name whose qualifier is the classname or package, or a
//     dot- or slash-bounded tail of it: "package/TestName",
//     "cli.TestRun", "internal/cli/TestRun", "TestSuite.test_x";
//  3. the test's own name: "test_x", "TestRun", "TestRun/sub";
//  4. a pytest node id "tests/test_x.py::TestC::test_y", read as
//     "tests.test_x.TestC.test_y", then forms 1 and 2;
//  5. the name with spaces turned into underscores, as go test renames
//     subtests ("TestRun/empty input" is "TestRun/empty_input"), then 1-3;
//  6. a parametrized test's function, in any of the forms above: every
//     case "name[params]" of it, combined into one test that fails while
//     any case fails (pytest's "test_escape", "tests/test_x.py::test_escape");
//  7. an it()/test() title: the test whose name is a path ending in it,
//     "describe > title" (node:test, vitest) or "describe title" (jest,
//     mocha full titles).
//
// More than one test in the result means the name is ambiguous: the caller
// reports it and guesses nothing.
func Match(tests []Test, name string) []Test {
	if name == "" {
		return nil
	}
	forms := []func(t *Test, n string) bool{matchFull, matchQualified, matchOwn}
	if got := matchForms(tests, name, forms); got != nil {
		return got
	}
	if id, ok := pytestID(name); ok {
		if got := matchForms(tests, id, forms[:2]); got != nil {
			return got
		}
	}
	if u := strings.ReplaceAll(name, " ", "_"); u != name {
		if got := matchForms(tests, u, forms); got != nil {
			return got
		}
	}
	if got := matchParametrized(tests, name); got != nil {
		return got
	}
	return matchForms(tests, name, []func(*Test, string) bool{matchTitle})
}

// matchParametrized finds the cases "name[params]" of a parametrized test
// named in any of the forms 1-4 and combines them into one test named by
// the function, failing while any case fails (the worst outcome wins).
func matchParametrized(tests []Test, name string) []Test {
	var bases []Test
	idx := map[int]int{} // bases index → tests index
	for i, t := range tests {
		open := strings.IndexByte(t.Name, '[')
		if open <= 0 || !strings.HasSuffix(t.Name, "]") {
			continue
		}
		b := t
		b.Name = t.Name[:open]
		idx[len(bases)] = i
		bases = append(bases, b)
	}
	if len(bases) == 0 {
		return nil
	}
	forms := []func(t *Test, n string) bool{matchFull, matchQualified, matchOwn}
	got := matchForms(bases, name, forms)
	if got == nil {
		if id, ok := pytestID(name); ok {
			got = matchForms(bases, id, forms[:2])
		}
	}
	if got == nil {
		return nil
	}
	first := got[0]
	for _, g := range got[1:] {
		if g.Suite != first.Suite || g.Name != first.Name {
			return got // several functions: ambiguous, said by the caller
		}
	}
	combined := first
	combined.Runs = nil
	for _, g := range got {
		if rank(g.Status) > rank(combined.Status) {
			combined.Status, combined.Message, combined.Output, combined.File, combined.Line = g.Status, g.Message, g.Output, g.File, g.Line
		}
	}
	return []Test{combined}
}

// matchTitle matches an it()/test() title at the end of a test's path:
// "describe > title", or a full title "describe title".
func matchTitle(t *Test, n string) bool {
	return strings.HasSuffix(t.Name, " > "+n) || (t.Suite == "" && strings.HasSuffix(t.Name, " "+n))
}

func matchForms(tests []Test, name string, forms []func(*Test, string) bool) []Test {
	for _, form := range forms {
		var got []Test
		for i := range tests {
			if form(&tests[i], name) {
				got = append(got, tests[i])
			}
		}
		if got != nil {
			return got
		}
	}
	return nil
}

func matchFull(t *Test, n string) bool {
	if t.Suite == "" {
		return t.Name == n
	}
	return len(n) == len(t.Suite)+1+len(t.Name) && strings.HasPrefix(n, t.Suite) &&
		n[len(t.Suite)] == '.' && strings.HasSuffix(n, t.Name)
}

// matchQualified matches "q.Name" and "q/Name" where q is the suite or a
// tail of it that starts after a '.' or '/'.
func matchQualified(t *Test, n string) bool {
	if t.Suite == "" || len(n) <= len(t.Name)+1 || !strings.HasSuffix(n, t.Name) {
		return false
	}
	q, sep := n[:len(n)-len(t.Name)-1], n[len(n)-len(t.Name)-1]
	if sep != '.' && sep != '/' || q == "" {
		return false
	}
	if q == t.Suite {
		return true
	}
	if !strings.HasSuffix(t.Suite, q) {
		return false
	}
	b := t.Suite[len(t.Suite)-len(q)-1]
	return b == '.' || b == '/'
}

func matchOwn(t *Test, n string) bool { return t.Name == n }

// pytestID rewrites a pytest node id "dir/test_x.py::C::name" as the
// "dir.test_x.C.name" that pytest's JUnit classname.name gives.
func pytestID(n string) (string, bool) {
	parts := strings.Split(n, "::")
	if len(parts) < 2 {
		return "", false
	}
	mod := strings.TrimSuffix(parts[0], ".py")
	parts[0] = strings.ReplaceAll(mod, "/", ".")
	return strings.Join(parts, "."), true
}
