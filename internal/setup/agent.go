package setup

import (
	"fmt"
	"slices"
	"strings"
)

// Agent is a coding agent the breaker watches: the logins it pushes and
// comments as (agent-actors: they may never reset its breaker) and the
// file it reads its repository instructions from.
type Agent struct {
	Name   string
	Logins []string
	// Instructions is the file the agent reads, relative to the repository.
	Instructions string
	// Next is what init's next steps add for this agent.
	Next string
	// Unassign is the login on-trip-unassign takes off the pull request at
	// a trip (and gives back at the reset): what stops the agent.
	Unassign string
}

// AgentNames are the accepted --agent values.
var AgentNames = []string{"copilot", "claude", "codex", "openhands", "other"}

// agents: the logins are those GitHub shows for each agent's pull
// requests and commits — Copilot's coding agent opens its pull requests as
// Copilot (REST) and commits as copilot-swe-agent[bot]; Claude Code's
// GitHub App is claude[bot]; the ChatGPT Codex connector is
// chatgpt-codex-connector[bot]; the OpenHands resolver pushes as the
// account whose token it is given, openhands-agent for the hosted one.
// The breaker treats a pull request's author and pushers as the agent
// too, whatever this list says.
var agents = map[string]Agent{
	"copilot": {Name: "copilot", Logins: []string{"Copilot", "copilot-swe-agent[bot]"}, Instructions: ".github/copilot-instructions.md", Unassign: "Copilot",
		Next: "For Copilot:\n" +
			"  - Workflows that Copilot's pushes start wait for a person's \"Approve and run workflows\"\n" +
			"    on the pull request (unless the repository's Copilot settings let them run): until\n" +
			"    they run, the breaker sees nothing.\n" +
			"  - No workflow step can stand in front of Copilot; breaker.yml unassigns it at a trip\n" +
			"    (on-trip-unassign: Copilot) and a maintainer's /breaker reset assigns it again.\n"},
	"claude": {Name: "claude", Logins: []string{"claude[bot]"}, Instructions: "CLAUDE.md",
		Next: "For Claude: put the gate in front of it, so it does not run while the breaker is OPEN:\n  breaker init --gate claude (docs/gate.md)\n"},
	"codex": {Name: "codex", Logins: []string{"chatgpt-codex-connector[bot]"}, Instructions: "AGENTS.md",
		Next: "For Codex: put the gate in front of it, so it does not run while the breaker is OPEN:\n  breaker init --gate codex (docs/gate.md)\n"},
	"openhands": {Name: "openhands", Logins: []string{"openhands-agent"}, Instructions: "AGENTS.md",
		Next: "For OpenHands: put the gate in front of the resolver, so it does not run while the breaker is OPEN:\n  breaker init --gate openhands (docs/gate.md)\n"},
	"other": {Name: "other", Instructions: "AGENTS.md",
		Next: "Whatever starts the agent, put the gate first in it (docs/gate.md; breaker init --gate\nfix-ci for a bot that fixes failed CI runs).\n"},
}

// CheckFlags checks the names and the action reference init was given, as
// the command line checks its flags: before anything is read or written.
func CheckFlags(o Options) error {
	if _, ok := agents[o.Agent]; !ok {
		return fmt.Errorf("--agent %q: want one of %s", o.Agent, strings.Join(AgentNames, ", "))
	}
	if o.Runner != "" && !slices.Contains(RunnerNames, o.Runner) {
		return fmt.Errorf("--runner %q: want one of %s (or none: detected)", o.Runner, strings.Join(RunnerNames, ", "))
	}
	if o.Uses != "" {
		if err := CheckUses(o.Uses); err != nil {
			return err
		}
	}
	if o.Gate != "" && !slices.Contains(GateNames, o.Gate) {
		return fmt.Errorf("--gate %q: want one of %s", o.Gate, strings.Join(GateNames, ", "))
	}
	if o.Simple && o.NoApp {
		return fmt.Errorf("--no-app goes with the binding deployment; --simple has no App to leave out")
	}
	return nil
}

// agentFor returns the agent of name.
func agentFor(name string) (Agent, error) {
	a, ok := agents[name]
	if !ok {
		return Agent{}, fmt.Errorf("--agent %q: want one of %s", name, strings.Join(AgentNames, ", "))
	}
	return a, nil
}

// InstructionLines are the lines an agent needs: what trips the breaker,
// what to do when it does, and the optional trailers.
const InstructionLines = "CI runs a circuit breaker: 3 failed pushes on one test, 7 in a slice, or 3 pushes in a row without progress fail the check.\n" +
	"When the breaker comment appears on the pull request, stop changing code: write your hypothesis and your question, and wait for a human.\n" +
	"Optional, for a sharper diagnostic: end each attempt's commit with `Greenlight-Test: <test>` and `Greenlight-Strategy: <what you tried>` trailers.\n"
