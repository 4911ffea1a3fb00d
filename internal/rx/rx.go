// Package rx compiles a regular expression the first time it is used
// instead of when the program starts. A counted repetition ({0,99}) makes
// a large program, and the breaker's package-level expressions took a
// fifth of `breaker version`'s CPU (GODEBUG=inittrace=1) for commands that
// never use most of them (issue 35: start-up).
package rx

import (
	"regexp"
	"sync"
)

var (
	mu     sync.Mutex
	all    []string
	lazies []func() *regexp.Regexp
)

// Lazy returns the expression, compiled on the first call (once, safely
// for concurrent callers). An expression that does not compile panics on
// that call, as regexp.MustCompile would at start-up; Exprs lets a test
// compile every one first.
func Lazy(expr string) func() *regexp.Regexp {
	re := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
	mu.Lock()
	all = append(all, expr)
	lazies = append(lazies, re)
	mu.Unlock()
	return re
}

// Exprs are the expressions Lazy was given, in the packages linked in.
func Exprs() []string {
	mu.Lock()
	defer mu.Unlock()
	return append([]string(nil), all...)
}

// warm compiles every expression now (the tests: each closure compiles
// without a panic). No run calls it: `breaker action` once did, to keep a
// compile out of the middle of its run, which cost that run far more than
// the compile; the cost was the collector's idle mark worker spinning on a
// second processor while the run waited for GitHub, and the run now uses
// one processor (internal/cli/action.go).
func warm() {
	mu.Lock()
	fs := append([]func() *regexp.Regexp(nil), lazies...)
	mu.Unlock()
	for _, f := range fs {
		f()
	}
}
