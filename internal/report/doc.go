// Package report renders a breaker.Decision for people and programs.
//
// It is pure: every function takes values and returns text. Markdown builds
// the sticky PR comment and the step summary (the seed 000 §4.3 fields, a
// first screen and the rest folded), JSON
// the stable "greenlight-breaker/v1" object of DESIGN §3, and Text the short
// terminal summary of `breaker evaluate --format text`.
//
// Everything a Decision carries is untrusted: commit messages, test names,
// failure output and branch names are written by the agent or by the code
// under test. Every renderer first passes the decision through a Redactor
// (tokens and secrets become ***, our comment marker is neutralised); then
// Markdown escapes text outside code, fences code so it cannot break out,
// and neutralises @-mentions and raw HTML, while Text drops terminal control
// sequences and defuses workflow commands. The helpers that do this are
// exported so the action layer applies the same rules to what it prints.
package report
