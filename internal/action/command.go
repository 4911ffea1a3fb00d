package action

import "github.com/greenlight-ci/breaker/internal/breaker"

// The /breaker commands of pull request comments are parsed in one home,
// breaker.ParseCommand: the Action acts on them, and `breaker replay`
// reads a past pull request's resets with the same reading.
type breakerCmd = breaker.Command

const (
	cmdDebug = breaker.CommandDebug
	cmdReset = breaker.CommandReset
)

func parseCommand(body string) (breakerCmd, bool) { return breaker.ParseCommand(body) }

func withSlice(cmd breakerCmd, slice string) breakerCmd { return breaker.WithSlice(cmd, slice) }
