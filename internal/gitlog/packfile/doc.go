// Package packfile reads git objects straight from a repository's mapped
// pack indexes, packfiles and loose objects, and commit headers from its
// commit-graph file. go-git's own object storage decodes every pack index
// into maps on first use, which costs about a second on a 200,000-commit
// repository; this reader touches only the pages it needs, keeps recently
// decoded delta bases in a byte-bounded LRU, and inflates a commit only as
// far as its header when that is all the walk needs.
//
// The API is small: Open maps an objects directory into a Set (Read,
// CommitHeader, Close); OpenGraph maps a commit-graph (Header, Close);
// ParseHeader reads a raw commit's header. Everything it reads was written
// by the agent: every length, offset and delta chain is checked against the
// mapped bytes, and a malformed entry is an error, never a panic.
package packfile
