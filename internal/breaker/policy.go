package breaker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// The policies (DESIGN §2): greenlight's own, and the other breakers of the
// seeds, each a fold over the same observed pushes.
const (
	PolicyGreenlight = "greenlight" // seeds 000/001: 3 per test, 7 per slice, 3 failed pushes in a row
	PolicyPRP        = "prp"        // seed 002: CLOSED/HALF_OPEN/OPEN on no progress and same errors, per phase
	PolicyBMAD       = "bmad"       // seed 003: consecutive failed sessions
	PolicyLiza       = "liza"       // seed 004: anomaly patterns
)

// PolicyRule is one policy: its name, the seed it follows, its own word for
// a tripped breaker, and its fold over the evidence, which replaces
// greenlight's verdict (nil for greenlight's own). Each policy registers
// its rule from its own file (registerPolicy); a new policy is that file,
// its report view (internal/report), its rows in
// testdata/scenarios.txt and its section of docs/policies.md.
type PolicyRule struct {
	Name      string
	Seed      string // "000", "002": the order policies are listed in
	OpenState string // the policy's word for tripped: OPEN, TRIGGERED
	apply     func(e *evaluator, d *Decision)
}

// PolicyDetail is a policy's own state, what its report shows
// (Decision.Detail): PRPState, BMADState, LizaState.
type PolicyDetail interface {
	PolicyName() string
}

// policyRules are the registered policies, in seed order.
var policyRules []PolicyRule

// registerPolicy adds a policy; a policy file calls it from init.
func registerPolicy(r PolicyRule) {
	i := sort.Search(len(policyRules), func(i int) bool { return policyRules[i].Seed > r.Seed })
	policyRules = slices.Insert(policyRules, i, r)
}

func init() {
	registerPolicy(PolicyRule{Name: PolicyGreenlight, Seed: "000", OpenState: string(StateOpen)})
}

// policyRule is the rule of a policy name; false for an unknown name.
func policyRule(name string) (PolicyRule, bool) {
	for _, r := range policyRules {
		if r.Name == name {
			return r, true
		}
	}
	return PolicyRule{}, false
}

// Policies lists the policy names, the default first.
func Policies() []string {
	out := make([]string, len(policyRules))
	for i, r := range policyRules {
		out[i] = r.Name
	}
	return out
}

// CheckPolicy returns nil for a known policy name, else an error naming them.
func CheckPolicy(name string) error {
	if _, ok := policyRule(name); ok {
		return nil
	}
	return fmt.Errorf("policy %q is not one of %s", name, strings.Join(Policies(), ", "))
}

// The bmad threshold's bounds and the seed's recommendation.
const (
	MinThreshold, MaxThreshold = 1, 99
	DefaultThreshold           = 5
)

// CheckThreshold returns nil for a bmad threshold in 1–99, else an error
// with the seed's recommendation.
func CheckThreshold(n int) error {
	if n < MinThreshold || n > MaxThreshold {
		return fmt.Errorf("threshold %d is out of range: use %d–%d; 3–10 is recommended, 5 the default", n, MinThreshold, MaxThreshold)
	}
	return nil
}

// policyPushes are the pushes a policy folds: observed after the reset,
// with their tests run (infra pushes are no iteration).
func (e *evaluator) policyPushes(d Decision) []Push {
	var out []Push
	for i, p := range e.pushes {
		if i < e.prior {
			continue
		}
		if p.Infra == "" {
			out = append(out, p)
		}
	}
	return out
}

// recordedOpen is the first OPEN verdict an observed push after the reset
// keeps in the ledger (a manual pull cord is not a trip), nil when none.
func (e *evaluator) recordedOpen(d Decision) *Verdict {
	if e.in.Carry != nil && e.in.Carry.Recorded != nil {
		return e.in.Carry.Recorded
	}
	for i, p := range e.pushes {
		if i < e.prior {
			continue
		}
		if v := p.Verdict; v != nil && v.State == StateOpen && v.TripReason != TripManual && v.TripReason != TripNone && v.TripReason != TripAgentOpen {
			return v
		}
	}
	return nil
}

// applyPolicy replaces greenlight's verdict with the chosen policy's.
// ledger_tampered and agent_open stand over every policy.
func (e *evaluator) applyPolicy(d *Decision) {
	tampered := d.TripReason == TripLedgerTampered
	inherited := d.TripReason == TripAgentOpen
	rule, ok := policyRule(e.p.Name)
	if !ok || rule.apply == nil {
		d.PolicyState = string(d.State)
		return
	}
	rule.apply(e, d)
	if v := e.recordedOpen(*d); v != nil && !d.Tripped {
		// OPEN ends only by a verified reset, under every policy: what the
		// agent writes (liza's blackboard emptied) cannot close it.
		setOpen(d, v.TripReason)
		d.PolicyState = rule.OpenState
		e.notef("the slice was OPEN (%s) at an earlier observed push; it stays OPEN until a verified reset", v.TripReason)
	}
	switch {
	case tampered:
		d.State, d.Tripped, d.TripReason = StateOpen, true, TripLedgerTampered
		d.PolicyState = rule.OpenState
	case inherited && !d.Tripped:
		setOpen(d, TripAgentOpen)
		d.PolicyState = rule.OpenState
	}
	switch {
	case d.Tripped:
		d.Diagnostics = nil // the policy's report replaces greenlight's diagnostics
	case e.in.Force:
		d.TripReason = TripManual // the pull cord: greenlight's diagnostic, now
	default:
		d.Diagnostics = nil
	}
}

// setOpen marks the decision tripped by a policy.
func setOpen(d *Decision, reason TripReason) {
	d.State, d.Tripped, d.TripReason, d.TrippedTest, d.TripCount = StateOpen, true, reason, "", 0
}

// setClosed marks the decision not tripped (a policy's own verdict).
func setClosed(d *Decision, state State) {
	d.State, d.Tripped, d.TripReason, d.TrippedTest, d.TripCount = state, false, TripNone, "", 0
}

// failingNames are the failing tests of a push, sorted.
func failingNames(p Push) []string {
	var out []string
	for name, t := range p.Tests {
		if t.Status.Failed() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// errorHash is the hash of a push's errors (seed 002: SHA-256 of the
// error's message and type): of the distinct fingerprints of its failing
// tests (each hashes the normalised message and type, no test name), so one
// identical error across fewer and fewer tests is the same error; "" when
// nothing fails.
func errorHash(p Push) string {
	names := failingNames(p)
	if len(names) == 0 {
		return ""
	}
	seen := map[string]bool{}
	var fps []string
	for _, n := range names {
		fp := p.Tests[n].Fingerprint
		if fp == "" {
			fp = "(no message)"
		}
		if !seen[fp] {
			seen[fp] = true
			fps = append(fps, fp)
		}
	}
	sort.Strings(fps)
	h := sha256.New()
	for _, fp := range fps {
		h.Write([]byte(fp + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// lastError is the first failing test at a push with its message, for
// people; "" when nothing fails.
func lastError(p Push) string {
	names := failingNames(p)
	if len(names) == 0 {
		return ""
	}
	if m := strings.TrimSpace(p.Tests[names[0]].Message); m != "" {
		return names[0] + ": " + firstLineOf(m)
	}
	return names[0]
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return capText(strings.TrimSpace(line), 300)
}

// stamp is a push's time as the seeds write it.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
