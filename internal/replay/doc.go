// Package replay is `breaker replay`: it reads a repository's past agent
// pull requests — their pushes, the workflow runs on each pushed head and
// what those runs left (result files in an artifact, failing tests named
// in a job's log, or the conclusion alone) — and judges every push with
// the engine and the policy the Action uses, so a team sees where the
// breaker would have stopped each agent, and what stopping would have
// saved, before installing it. It needs only a read token and a clone.
//
// It reads GitHub through forge.History, within a request budget and
// from a cache, and git through internal/evaluate, as the Action does.
package replay
