package breaker

import (
	"sort"
	"strconv"
	"strings"
)

func init() {
	registerPolicy(PolicyRule{Name: PolicyLiza, Seed: "004", OpenState: "TRIGGERED", apply: (*evaluator).applyLiza})
}

// PolicyName names the policy whose state this is.
func (*LizaState) PolicyName() string { return PolicyLiza }

// Anomaly is one entry of the anomalies section of Liza's blackboard
// (.liza/state.yaml), or one the breaker derived from CI's evidence.
type Anomaly struct {
	Timestamp string
	Task      string
	Reporter  string
	Type      string
	Details   map[string]string
	Derived   bool // derived from CI's observations, not logged by an agent
}

// LizaState is what the liza policy found (seed 004).
type LizaState struct {
	Status    string // OK or TRIGGERED
	Pattern   string // the first pattern that matched
	Severity  string
	Evidence  []Anomaly // the anomalies of the match
	Matches   []LizaMatch
	Anomalies []Anomaly // every anomaly read or derived
}

// LizaMatch is a pattern that matched, with its group and count.
type LizaMatch struct {
	Pattern  string
	Severity string
	Key      string // the shared value (error pattern, assumption, spec ref, ...)
	Count    int
}

// lizaRule is one of seed 004's pattern rules; v1 matching is exact.
type lizaRule struct {
	name, severity string
	types          []string
	key            string // the details field grouped on; "" = all together
	need           func(a Anomaly) bool
	min            int
}

var lizaRules = []lizaRule{
	{name: "retry_cluster", severity: "ARCHITECTURE_FLAW", types: []string{"retry_loop"}, key: "error_pattern", min: 3},
	{name: "debt_accumulation", severity: "SCOPE_FLAW", types: []string{"trade_off"}, min: 3,
		need: func(a Anomaly) bool { return strings.EqualFold(a.Details["debt_created"], "true") }},
	{name: "assumption_cascade", severity: "SPEC_FLAW", types: []string{"assumption_violated"}, key: "assumption", min: 2},
	{name: "workaround_pattern", severity: "ARCHITECTURE_FLAW", types: []string{"workaround", "trade_off"}, key: "root_cause", min: 2},
	{name: "spec_gap_cluster", severity: "SPEC_FLAW", types: []string{"spec_ambiguity"}, key: "spec_ref", min: 2},
	{name: "external_service_outage", severity: "EXTERNAL_DEPENDENCY", types: []string{"external_blocker"}, key: "blocker_service", min: 2},
}

// retryLoopPushes is how many observed pushes a test must fail at to be a
// retry_loop anomaly derived from CI's evidence.
const retryLoopPushes = 3

// applyLiza reads the anomalies (logged, and derived from CI: a test
// failing at 3 observed pushes is a retry_loop with its normalised error as
// error_pattern), applies the seed's rules in order, and halts on the
// first match with its severity. The breaker observes: it writes nothing.
func (e *evaluator) applyLiza(d *Decision) {
	st := &LizaState{Status: "OK"}
	d.Detail = st
	st.Anomalies = append(append([]Anomaly(nil), e.in.Anomalies...), deriveRetryLoops(e.policyPushes(*d))...)
	for _, r := range lizaRules {
		groups := map[string][]Anomaly{}
		for _, a := range st.Anomalies {
			if !hasType(r.types, a.Type) || (r.need != nil && !r.need(a)) {
				continue
			}
			k := ""
			if r.key != "" {
				if k = a.Details[r.key]; k == "" {
					continue
				}
			}
			groups[k] = append(groups[k], a)
		}
		keys := make([]string, 0, len(groups))
		for k := range groups {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if g := groups[k]; len(g) >= r.min {
				st.Matches = append(st.Matches, LizaMatch{Pattern: r.name, Severity: r.severity, Key: k, Count: len(g)})
				if st.Pattern == "" {
					st.Pattern, st.Severity, st.Evidence = r.name, r.severity, g
				}
			}
		}
	}
	if st.Pattern == "" {
		setClosed(d, StateClosed)
		d.PolicyState = st.Status
		return
	}
	st.Status = "TRIGGERED"
	setOpen(d, TripPattern)
	d.PolicyState = st.Status
}

func hasType(types []string, t string) bool {
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}

// deriveRetryLoops turns CI's evidence into retry_loop anomalies: one per
// test that failed at retryLoopPushes observed pushes or more.
func deriveRetryLoops(ps []Push) []Anomaly {
	fails := map[string]int{}
	pattern := map[string]string{}
	last := map[string]string{}
	for _, p := range ps {
		for _, name := range failingNames(p) {
			fails[name]++
			t := p.Tests[name]
			switch {
			case t.Message != "":
				pattern[name] = normaliseError(t.Message)
			case pattern[name] == "" && t.Fingerprint != "":
				pattern[name] = "fingerprint " + t.Fingerprint
			}
			last[name] = stamp(p.ObservedAt)
		}
	}
	var out []Anomaly
	names := make([]string, 0, len(fails))
	for n := range fails {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if fails[n] < retryLoopPushes {
			continue
		}
		out = append(out, Anomaly{Timestamp: last[n], Task: n, Reporter: "greenlight-breaker (CI)", Type: "retry_loop", Derived: true,
			Details: map[string]string{"count": strconv.Itoa(fails[n]), "error_pattern": pattern[n]}})
	}
	return out
}

// normaliseError is an error's first line with its digits masked and its
// blanks collapsed, so the same error at other lines matches exactly.
func normaliseError(msg string) string {
	line := firstLineOf(msg)
	var b strings.Builder
	for _, r := range line {
		if r >= '0' && r <= '9' {
			r = '0'
		}
		b.WriteRune(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
