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
	"copilot":   {Name: "copilot", Logins: []string{"Copilot", "copilot-swe-agent[bot]"}, Instructions: ".github/copilot-instructions.md"},
	"claude":    {Name: "claude", Logins: []string{"claude[bot]"}, Instructions: "CLAUDE.md"},
	"codex":     {Name: "codex", Logins: []string{"chatgpt-codex-connector[bot]"}, Instructions: "AGENTS.md"},
	"openhands": {Name: "openhands", Logins: []string{"openhands-agent"}, Instructions: "AGENTS.md"},
	"other":     {Name: "other", Instructions: "AGENTS.md"},
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
