package breaker

import (
	"fmt"
	"slices"
)

// A new policy is a PolicyRule registered from its own file: its name, the
// seed it follows, its word for tripped, and its fold over the observed
// pushes, which replaces greenlight's verdict. Here a toy policy, "two
// strikes", opens at the second push with failing tests; it is registered,
// run through Evaluate push by push, and taken out again
// (docs/architecture.md). Its report view lives in internal/report, its
// rows in testdata/scenarios.txt.
func Example_addAPolicy() {
	registerPolicy(PolicyRule{Name: "twostrikes", Seed: "900", OpenState: "STRUCK_OUT",
		apply: func(e *evaluator, d *Decision) {
			strikes := 0
			for _, p := range e.policyPushes(*d) {
				if len(failingNames(p)) > 0 {
					strikes++
				}
			}
			if strikes >= 2 {
				setOpen(d, TripNoProgress)
				d.PolicyState = "STRUCK_OUT"
				return
			}
			setClosed(d, StateClosed)
			d.PolicyState = fmt.Sprintf("%d strike", strikes)
		}})
	defer func() {
		policyRules = slices.DeleteFunc(policyRules, func(r PolicyRule) bool { return r.Name == "twostrikes" })
	}()
	fmt.Println(Policies())

	var pushes []Push
	for i, failing := range []bool{true, false, true} {
		p := Push{Head: sha(i + 1), Source: PushFromRun, Complete: true, Tests: map[string]PushTest{"TestLogin": {Status: StatusPass}}}
		if failing {
			p.Tests["TestLogin"] = PushTest{Status: StatusFail}
		}
		pushes = append(pushes, p)
		in := Input{Policy: DefaultPolicy(), Pushes: pushes, Observation: Observation{Head: p.Head}}
		in.Policy.Name = "twostrikes"
		d := Evaluate(in)
		fmt.Printf("%s %s reason=%q\n", d.State, d.PolicyState, d.TripReason)
		pushes[i].Source = PushFromLedger
	}
	// Output:
	// [greenlight prp bmad liza twostrikes]
	// CLOSED 1 strike reason=""
	// CLOSED 1 strike reason=""
	// OPEN STRUCK_OUT reason="no_progress"
}
