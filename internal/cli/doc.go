// Package cli implements the breaker command line: the subcommands, their
// flags and help, and the wiring of adapters to the pure domain. It is the
// only package that maps a breaker.Decision to a process exit code.
package cli
