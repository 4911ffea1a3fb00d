// Package workspace is the only code that opens files under the workspace
// (the repository the breaker reads: --repo, or GITHUB_WORKSPACE). The agent
// writes that tree: every result file, GRAPH.json, CONTRACTS.md and the JSON
// report may be a symlink, a device, a FIFO or a file of any size. So every
// access goes through one os.Root at the workspace: a path or symlink that
// leads outside is refused before a byte is read or written, only regular
// files are read, and every read is capped (Stat, then an io.LimitReader in
// case the file grows). Errors name the file and the limit.
package workspace
