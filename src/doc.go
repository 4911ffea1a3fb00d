// Package src embeds the agent-side documents: the protocol an agent follows
// when it works on a branch guarded by the breaker, the hard rule for an
// agent's instructions file, and the human commands for debug and reset.
package src
