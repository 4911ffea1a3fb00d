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
// A shallow clone whose missing history is needed is an error wrapping
// ErrShallow, never an empty branch.
package gitlog
