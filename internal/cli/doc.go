// Package cli is the breaker command line: the subcommands, their flags and
// help, and the wiring of adapters (git, GitHub, the runner) into the use
// cases of internal/evaluate and internal/action. exitCode in exit.go is the
// one place a breaker.Decision or an action.Outcome becomes a process exit
// code; nothing else here decides anything.
package cli
