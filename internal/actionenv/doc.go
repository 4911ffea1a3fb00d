// Package actionenv is the breaker's adapter to the GitHub Actions runtime,
// built on github.com/sethvargo/go-githubactions. It reads the action's
// inputs and the subset of the event payload the breaker uses, writes step
// outputs and the step summary through the runner's files, and prints log
// lines and annotations as workflow commands that untrusted text cannot
// forge.
//
// Everything it touches is injected: the environment through a getenv
// function and the log through an io.Writer. It never uses the package-level
// helpers of go-githubactions, which read the real environment, panic on
// write errors and exit the process.
package actionenv
