package breaker

import (
	"sort"
	"strconv"
	"strings"
	"time"
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
	f := newLizaFold()
	if c := e.in.Carry; c != nil && c.Liza != nil {
		f = c.Liza.clone()
	}
	for _, p := range e.policyPushes(*d) {
		f.add(p)
	}
	st.Anomalies = append(append([]Anomaly(nil), e.in.Anomalies...), f.retryLoops()...)
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

// LizaFold is the liza fold of the failures at the observed pushes after
// the reset (whose tests ran): for each test that failed at one, what its
// retry_loop anomaly says.
type LizaFold struct {
	Tests map[string]*LizaTest
}

// LizaTest is one test's failures in a LizaFold.
type LizaTest struct {
	Fails int // the pushes it failed at
	// Pattern is its error pattern: the normalised message of the newest
	// failure that has one, else "fingerprint " and the first failure's
	// fingerprint.
	Pattern string
	Last    time.Time // when the newest push it failed at was observed
}

// newLizaFold is the fold of no push.
func newLizaFold() *LizaFold { return &LizaFold{Tests: map[string]*LizaTest{}} }

// clone copies f deeply (nil stays nil).
func (f *LizaFold) clone() *LizaFold {
	if f == nil {
		return nil
	}
	out := newLizaFold()
	for n, t := range f.Tests {
		c := *t
		out.Tests[n] = &c
	}
	return out
}

// add folds one push's failing tests.
func (f *LizaFold) add(p Push) {
	for _, name := range failingNames(p) {
		t := f.Tests[name]
		if t == nil {
			t = &LizaTest{}
			f.Tests[name] = t
		}
		t.Fails++
		pt := p.Tests[name]
		switch {
		case pt.Message != "":
			t.Pattern = normaliseError(pt.Message)
		case t.Pattern == "" && pt.Fingerprint != "":
			t.Pattern = "fingerprint " + pt.Fingerprint
		}
		t.Last = p.ObservedAt
	}
}

// retryLoops turns CI's evidence into retry_loop anomalies: one per test
// that failed at retryLoopPushes observed pushes or more, by name.
func (f *LizaFold) retryLoops() []Anomaly {
	names := make([]string, 0, len(f.Tests))
	for n := range f.Tests {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Anomaly
	for _, n := range names {
		t := f.Tests[n]
		if t.Fails < retryLoopPushes {
			continue
		}
		out = append(out, Anomaly{Timestamp: stamp(t.Last), Task: n, Reporter: "greenlight-breaker (CI)", Type: "retry_loop", Derived: true,
			Details: map[string]string{"count": strconv.Itoa(t.Fails), "error_pattern": t.Pattern}})
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
