// Command breaker enforces the Greenlight circuit breaker on agent branches.
// See the README, or run `breaker help`.
package main
