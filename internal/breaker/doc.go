// Package breaker is the pure domain of the Greenlight circuit breaker.
//
// It turns the commits of an agent branch (oldest first, with their trailers
// and changed paths) and the observations of one CI run into a Decision: the
// breaker's state, the per-test and per-slice failed-attempt counts, and the
// structured diagnostic of seed 001 §4. Evaluate is a fold over plain values;
// it performs no I/O and imports no adapter. A tripped breaker is a result,
// never an error: mapping it to an exit code is the job of internal/cli.
package breaker
