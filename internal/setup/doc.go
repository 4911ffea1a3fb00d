// Package setup plans the files `breaker init` writes into a repository:
// the workflows of the deployment that binds (the agent's tests on
// pull_request with a token that may only read; the breaker on
// workflow_run from the default branch, with the ledger key from an
// environment limited to it), or the simple one-file shape, with the test
// step of the runner it detects, and the agent's instruction lines. It
// reads the repository through an fs.FS and writes nothing itself: the
// command line is the adapter.
package setup
