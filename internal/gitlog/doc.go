// Package gitlog is the go-git adapter that reads an agent branch.
//
// Repo.Log returns the first-parent commits of the head back to the point
// where the branch left its base (oldest first), each with its trailers and,
// for attempt commits only, the paths it changed. The walk that finds that
// point paints the history from both tips at once, newest first (by
// commit-graph generation when the repository has a commit-graph file, by
// commit date otherwise), and stops as soon as what remains is common to
// both sides, so its cost follows the branch rather than the age of the
// repository. Repo.Refs reads the breaker's checkpoint and reset tags.
//
// go-git provides the repository layout, refs and configuration. Objects
// are read from the mapped pack indexes and packfiles directly (package packfile),
// because go-git's object storage decodes every pack index into maps on
// first use, which costs about a second on a 200,000-commit repository;
// objects the fast reader does not hold still come from go-git.
//
// A shallow clone whose missing history is needed is an error wrapping
// ErrShallow, never an empty branch.
package gitlog
