// Package action holds the GitHub Action's use cases, one file each: a push
// or pull request (push.go), the pull cord (pullcord.go), the comment
// commands (commands.go), reset and rollback (reset.go), a closed pull
// request (closed.go), publishing a decision (publish.go), the breaker's
// remote tags (refs.go) and the dry run (dryrun.go). Run routes one event to
// its use case and returns an Outcome; internal/cli turns it into the exit
// code. Each run loads the branch once (internal/evaluate) and decides on
// that snapshot as often as the use case needs. The GitHub ports it uses
// are declared here, split by use (ports.go), and implemented by
// internal/ghapi.
package action
