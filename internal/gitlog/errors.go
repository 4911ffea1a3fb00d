package gitlog

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrShallow reports that the history needed to find the branch's fork point
// is not in the repository: a shallow clone, or objects missing.
var ErrShallow = errors.New("the repository is a shallow clone and the history the breaker needs is missing")

// ErrMissingObject reports a commit the clone does not hold (a head
// force-pushed away and never fetched, or a SHA from elsewhere).
var ErrMissingObject = errors.New("the clone does not hold this commit")

// shallowFix is the advice every ErrShallow carries.
const shallowFix = "fetch the full history: set `fetch-depth: 0` on actions/checkout, or run `git fetch --unshallow`"

// shallowError wraps ErrShallow with the commit where the history stops.
func shallowError(at plumbing.Hash, why string) error {
	return fmt.Errorf("%w: %s at commit %s; %s", ErrShallow, why, at, shallowFix)
}

// errCycle reports history that comes back to itself: commit at names
// parent, which descends from at. Real history cannot (a commit's name
// covers its parents), so the agent crafted the objects or the
// commit-graph the walk read.
func errCycle(at, parent plumbing.Hash) error {
	return fmt.Errorf("the history loops: commit %s names %s as a parent, which descends from it; the repository's objects or commit-graph were tampered with", at, parent)
}
