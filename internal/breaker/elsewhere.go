package breaker

import (
	"sort"
	"strings"
)

// TripAgentOpen: another line of work of the same agent is OPEN, and this
// one fails a test that tripped there or carries its tripped head's tree
// (DESIGN §5, "an OPEN circuit follows the agent"). It lasts while that
// line is OPEN: it is never a recorded verdict of this line, so a
// maintainer's reset of either, or a maintainer closing the tripped pull
// request, ends it.
const TripAgentOpen TripReason = "agent_open"

// OpenElsewhere is an OPEN line of work of the agent that wrote this one
// (the same pull request author, as GitHub attests it), other than this
// line: what the adapter read of its newest verified ledger entry.
type OpenElsewhere struct {
	Where  string     // how people name it: "#7"
	Reason TripReason // why it is OPEN
	// Tests are the tests failing at its tripped head, by full name.
	Tests []string
	// SameTree says this run's head has the tree of its tripped head: the
	// same code, squashed or cherry-picked into new commits.
	SameTree bool
}

// elsewhere is the OPEN line of the same agent this line inherits, and
// why: the first (in the input's order) whose tree this head carries, or
// one of whose tripped tests this run fails. ok is false when none does.
func elsewhere(in Input) (o OpenElsewhere, why string, ok bool) {
	for _, x := range in.Elsewhere {
		if x.SameTree {
			return x, "this head carries the code of its tripped head", true
		}
	}
	for _, x := range in.Elsewhere {
		var failing []string
		for _, t := range x.Tests {
			if _, f := in.Observation.Failing[t]; f {
				failing = append(failing, t)
			}
		}
		if len(failing) > 0 {
			sort.Strings(failing)
			return x, "this run fails " + strings.Join(failing, ", ") + ", which failed there", true
		}
	}
	return OpenElsewhere{}, "", false
}
