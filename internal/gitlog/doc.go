// Package gitlog is the go-git adapter that reads an agent branch.
//
// Repo.Log returns base..head as git means it: every commit reachable from
// the head and not from the base, merges and the history behind their
// other parents included, oldest first in the reverse of git's
// --date-order, each with its trailers and, for attempt commits only, the
// paths it changed against its first parent. The walk paints the history
// from both tips at once, newest first (by commit-graph generation when
// the repository has a commit-graph file, by commit date otherwise,
// tolerating clock skew as git does), and stops as soon as everything
// still queued is reachable from the base, so its cost follows the branch
// rather than the age of the repository. Repo.Refs reads the breaker's checkpoint and reset tags.
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
