// Command gen writes a git fast-import stream for the history benchmark:
// a main branch of -commits commits over a tree of -files files, with
// merged side branches, and one agent branch of -attempts attempt commits
// forked each of -forks commits behind main's tip (refs/heads/agent-<n>).
package main
