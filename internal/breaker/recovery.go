package breaker

import "fmt"

// recovery lists the seed 000 §4.3 recovery options, each with its risk
// and, when it has one, the exact command or comment.
func (e *evaluator) recovery(d Decision, test string) []RecoveryOption {
	reset := "/breaker reset"
	if d.Slice != "" {
		reset += " " + d.Slice
	}
	if d.State == StateOpen && d.HeadPasses {
		// The agent fixed it: rolling back or skipping would discard the fix.
		return []RecoveryOption{{
			Option:  "The tests pass at this head: a maintainer reviews the fix and resets the counters (the breaker never closes by itself)",
			Command: reset + " <guidance>",
			Risk:    "Low: the counts restart from here; the attempts so far are kept as what was already tried",
		}}
	}
	guide := RecoveryOption{
		Option:  "Provide guidance and reset the counters: comment on the pull request",
		Command: reset + " <guidance>",
		Risk: "Low if the guidance answers the question above; the counts restart and the " +
			"attempts so far are kept as what was already tried",
	}
	if d.State != StateOpen {
		// Nothing is OPEN (the pull cord, a warning): there is no reset to
		// advise, only words for the agent's next attempt.
		reset = ""
		guide = RecoveryOption{
			Option: "Answer the question above on the pull request, for the agent's next attempt (the breaker is not OPEN: there is nothing to reset)",
			Risk:   "Low: nothing is discarded",
		}
	}
	return []RecoveryOption{
		rollbackOption(d, reset),
		guide,
		{
			Option: fmt.Sprintf("Re-scope slice %s (its contract or GRAPH.json entry may need adjusting)", d.Slice),
			Risk:   "Medium: other slices and their contracts may depend on this boundary",
		},
		{
			Option: skipText(test),
			Risk:   "High: the test stays failing; tests are the source of truth and the breaker never changes them",
		},
	}
}

// rollbackOption is the roll-back option with the exact checkout command,
// and the reset that restores the checkpoint's tree when reset is not "".
func rollbackOption(d Decision, reset string) RecoveryOption {
	tag := d.Checkpoint.Tag
	if tag == "" {
		return RecoveryOption{
			Option: "Roll back to the checkpoint",
			Risk:   "Not available: the slice has no id that can name a checkpoint tag",
		}
	}
	restore := ""
	if reset != "" {
		restore = fmt.Sprintf("; or comment %q on the pull request to restore its tree as a new commit on the branch", reset+" --rollback <guidance>")
	}
	return RecoveryOption{
		Option:  fmt.Sprintf("Roll back to the checkpoint %s (the parent of the slice's first attempt)%s", tag, restore),
		Command: "git checkout " + tag,
		Risk: "Medium: discards every change since the checkpoint, good ones included; the attempts " +
			"stay in the history and in the next diagnostic",
	}
}

// skipText names the test to skip, or the failing test in general.
func skipText(test string) string {
	if test == "" {
		return "Skip the failing test and continue with the remaining tests"
	}
	return fmt.Sprintf("Skip the test %q and continue with the remaining tests", test)
}
