package report

import (
	"github.com/greenlight-ci/breaker/internal/breaker"
)

// policyView is how the report shows a policy's own state
// (breaker.Decision.Detail): its section in the markdown report, its line
// in the text report, its JSON (policy_detail), and the words for the trip
// reasons it owns. Each policy registers its view from its own file.
type policyView struct {
	section func(d breaker.Decision) string
	line    func(d breaker.Decision) string
	json    func(d breaker.Decision) any
	// reasons words the policy's trip reasons as the seed does, and
	// stopped as the headline says them.
	reasons map[breaker.TripReason]reasonWords
}

// reasonWords are a trip reason's words: as the seed says it, and as the
// headline says why the breaker stopped the pull request.
type reasonWords struct {
	seed, stopped func(d breaker.Decision, name func(string) string) string
}

// policyViews are the registered views, by policy name.
var policyViews = map[string]policyView{}

// viewOf is the view of the decision's policy; false under greenlight (no
// detail) or a policy without a view.
func viewOf(d breaker.Decision) (policyView, bool) {
	if d.Detail == nil {
		return policyView{}, false
	}
	v, ok := policyViews[d.Detail.PolicyName()]
	return v, ok
}

// policyBlocks are the other policies' own report sections (seeds 002-004),
// shown after the header in place of greenlight's diagnostics.
func policyBlocks(d breaker.Decision) []block {
	if v, ok := viewOf(d); ok {
		return []block{fixed(v.section(d))}
	}
	return nil
}

// textPolicy is the text report's line for the other policies.
func textPolicy(d breaker.Decision) string {
	if v, ok := viewOf(d); ok {
		return v.line(d)
	}
	return ""
}

// policyJSON is the JSON of the policy's own state (policy_detail); nil
// under greenlight.
func policyJSON(d breaker.Decision) any {
	if v, ok := viewOf(d); ok {
		return v.json(d)
	}
	return nil
}

// policyReason is the policy's words for its own trip reason; false when
// the reason is not one the policy owns.
func policyReason(d breaker.Decision) (reasonWords, bool) {
	v, ok := viewOf(d)
	if !ok {
		return reasonWords{}, false
	}
	w, ok := v.reasons[d.TripReason]
	return w, ok
}

func lastN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func when(s string, zero bool) string {
	if zero {
		return ""
	}
	return inline(s)
}

func orNone(s string) string {
	if s == "" {
		return "none recorded"
	}
	return s
}
