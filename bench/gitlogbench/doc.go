// Command gitlogbench reads an agent branch through internal/gitlog the way
// `breaker evaluate` does (trailers parsed, changed paths for attempts) and
// prints how many commits it read. bench/run.sh times it beside git.
package main
