package breaker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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

// Policies lists the policy names, the default first.
var Policies = []string{PolicyGreenlight, PolicyPRP, PolicyBMAD, PolicyLiza}

// CheckPolicy returns nil for a known policy name, else an error naming them.
func CheckPolicy(name string) error {
	for _, p := range Policies {
		if p == name {
			return nil
		}
	}
	return fmt.Errorf("policy %q is not one of %s", name, strings.Join(Policies, ", "))
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
		if i < len(d.Pushes) && d.Pushes[i].Prior {
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
	for i, p := range e.pushes {
		if i < len(d.Pushes) && d.Pushes[i].Prior {
			continue
		}
		if v := p.Verdict; v != nil && v.State == StateOpen && v.TripReason != TripManual && v.TripReason != TripNone {
			return v
		}
	}
	return nil
}

// applyPolicy replaces greenlight's verdict with the chosen policy's.
// ledger_tampered stands over every policy.
func (e *evaluator) applyPolicy(d *Decision) {
	tampered := d.TripReason == TripLedgerTampered
	switch e.p.Name {
	case PolicyPRP:
		e.applyPRP(d)
	case PolicyBMAD:
		e.applyBMAD(d)
	case PolicyLiza:
		e.applyLiza(d)
	default:
		d.PolicyState = string(d.State)
		return
	}
	if v := e.recordedOpen(*d); v != nil && !d.Tripped {
		// OPEN ends only by a verified reset, under every policy: what the
		// agent writes (liza's blackboard emptied) cannot close it.
		setOpen(d, v.TripReason)
		d.PolicyState = openState(e.p.Name)
		e.notef("the slice was OPEN (%s) at an earlier observed push; it stays OPEN until a verified reset", v.TripReason)
	}
	if tampered {
		d.State, d.Tripped, d.TripReason = StateOpen, true, TripLedgerTampered
		d.PolicyState = openState(e.p.Name)
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

// openState is the policy's own word for a tripped breaker: OPEN (seed
// 002's circuit), TRIGGERED for bmad and liza (seeds 003 and 004).
func openState(policy string) string {
	if policy == PolicyBMAD || policy == PolicyLiza {
		return "TRIGGERED"
	}
	return string(StateOpen)
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
