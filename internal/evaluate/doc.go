// Package evaluate is the evaluation use case shared by `breaker evaluate`,
// `breaker demo` and the Action: Load reads everything an evaluation needs
// once (the branch's commits from git, this run's test results and the slice
// graph from the workspace), and Snapshot.Decide runs the pure engine over
// it with the breaker's refs, as many times as a use case needs (a reset
// decides twice) without reading git again.
package evaluate
