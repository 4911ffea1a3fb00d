package breaker

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEvaluate_ScenarioTable runs the push sequences of
// testdata/scenarios.txt through Evaluate as CI would: one run a push, each
// run reading the pushes before it as the ledger keeps them (with the
// verdict each earlier run recorded) and observing its own head. Each row
// names the policy, the pushes, and the state every run decides.
func TestEvaluate_ScenarioTable(t *testing.T) {
	t.Parallel()
	rows := readScenarios(t, "testdata/scenarios.txt")
	policies := map[string]bool{}
	for _, sc := range rows {
		policies[sc.policy] = true
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			got := sc.run()
			if strings.Join(got, " ") != strings.Join(sc.want, " ") {
				t.Errorf("runs decide %s\nwant        %s", strings.Join(got, " "), strings.Join(sc.want, " "))
			}
		})
	}
	for _, p := range Policies() {
		if !policies[p] {
			t.Errorf("no scenario runs policy %s: every policy is tested by the table", p)
		}
	}
}

// scenario is one row of the table.
type scenario struct {
	name      string
	policy    string
	phase     string
	threshold int
	branch    string
	slice     string
	base      map[string]bool
	tampered  bool // an entry of the ledger did not verify
	// elsewhere are the tripped tests of another line of work of the same
	// agent that is OPEN (#7, no_progress); nil when there is none.
	elsewhere []string
	anomalies []Anomaly
	pushes    []scenarioPush
	want      []string
}

// scenarioPush is one push of a row: the tests CI saw at it, in order.
type scenarioPush struct {
	tests     []ObservedTest // in the order written
	infraKind string
	slice     string
	reset     bool
	trailers  []Trailer // of the push's one commit
	// again is the push (1-based) whose head this push brings back (a
	// force push back to it), 0 for a new commit; rerun says it is a
	// re-run of that push's run (the same run id, a higher attempt).
	again int
	rerun bool
	leg   bool // another leg of push N's run: the same run id and attempt (a matrix)
	tree  bool // the push carries the tree of the OPEN line elsewhere's tripped head
}

// readScenarios reads the table: name | policy and options | pushes split
// by ";" | the state each run decides (the file's header says how).
func readScenarios(t *testing.T, path string) []scenario {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []scenario
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) != 4 {
			t.Fatalf("%s:%d: want 4 cells split by |, got %d", path, n, len(cells))
		}
		row := scenario{name: strings.TrimSpace(cells[0]), base: map[string]bool{}}
		if err := row.options(strings.Fields(cells[1])); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		for _, spec := range strings.Split(cells[2], ";") {
			p, err := parseScenarioPush(strings.Fields(spec))
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			row.pushes = append(row.pushes, p)
		}
		row.want = strings.Fields(cells[3])
		if len(row.want) != len(row.pushes) {
			t.Fatalf("%s:%d: %d pushes, %d states wanted", path, n, len(row.pushes), len(row.want))
		}
		out = append(out, row)
	}
	if len(out) < 20 {
		t.Fatalf("%s: read %d scenarios, want the table's", path, len(out))
	}
	return out
}

// options reads the policy cell: the policy name, then key=value options
// and anomalies (a:TYPE:key=value,key=value).
func (s *scenario) options(fields []string) error {
	if len(fields) == 0 {
		return fmt.Errorf("no policy")
	}
	s.policy = fields[0]
	if err := CheckPolicy(s.policy); err != nil {
		return err
	}
	for _, f := range fields[1:] {
		if rest, ok := strings.CutPrefix(f, "a:"); ok {
			typ, details, _ := strings.Cut(rest, ":")
			a := Anomaly{Type: typ, Task: "task", Reporter: "coder", Details: map[string]string{}}
			for _, kv := range strings.Split(details, ",") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					a.Details[k] = v
				}
			}
			s.anomalies = append(s.anomalies, a)
			continue
		}
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return fmt.Errorf("option %q is not key=value", f)
		}
		switch k {
		case "phase":
			s.phase = v
		case "threshold":
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("threshold %q: %v", v, err)
			}
			s.threshold = n
		case "branch":
			s.branch = v
		case "slice":
			s.slice = v
		case "tampered":
			s.tampered = v == "yes"
		case "elsewhere":
			s.elsewhere = strings.Split(v, ",")
		case "base":
			for _, name := range strings.Split(v, ",") {
				s.base[name] = true
			}
		default:
			return fmt.Errorf("unknown option %q", k)
		}
	}
	return nil
}

// parseScenarioPush reads one push: T passes, T! fails (with the error
// "boom"), T!x fails with the error x, ~T is absent, !build, !no_results,
// !cancelled say the tests did not run, @S-2 is the slice the run decided
// for, @reset records a verified reset after the run, +Key=Value is a
// trailer of the push's one commit, =N force-pushes the branch back to
// push N's head (a new run), =Nr re-runs push N's run (its run id, the
// next attempt), =Nm is another leg of push N's run (its id and attempt),
// %tree says the push carries the tripped tree of the OPEN line elsewhere.
func parseScenarioPush(fields []string) (scenarioPush, error) {
	var p scenarioPush
	for _, f := range fields {
		switch {
		case f == "-":
		case f == "@reset":
			p.reset = true
		case f == "%tree":
			p.tree = true
		case strings.HasPrefix(f, "="):
			n, err := strconv.Atoi(strings.TrimRight(f[1:], "rm"))
			if err != nil || n < 1 {
				return p, fmt.Errorf("%q: =N brings back push N's head, =Nr re-runs push N's run, =Nm is another leg of it", f)
			}
			p.again, p.rerun, p.leg = n, strings.HasSuffix(f, "r"), strings.HasSuffix(f, "m")
		case strings.HasPrefix(f, "+"):
			k, v, ok := strings.Cut(f[1:], "=")
			if !ok {
				return p, fmt.Errorf("%q: a trailer is +Key=Value", f)
			}
			p.trailers = append(p.trailers, Trailer{Key: k, Value: v})
		case strings.HasPrefix(f, "@"):
			p.slice = f[1:]
		case strings.HasPrefix(f, "!"):
			switch f[1:] {
			case InfraBuild, InfraNoResults, InfraCancelled, InfraWithheld:
				p.infraKind = f[1:]
			default:
				return p, fmt.Errorf("%q: not !build, !no_results, !cancelled or !withheld", f)
			}
		case strings.HasPrefix(f, "~"):
			// absent: any test not written is, and one that failed before
			// is kept in the ledger as absent; ~T says so for the reader.
		case strings.Contains(f, "!"):
			name, msg, _ := strings.Cut(f, "!")
			if msg == "" {
				msg = "boom"
			}
			p.tests = append(p.tests, ObservedTest{Name: name, Status: StatusFail, Message: msg})
		default:
			p.tests = append(p.tests, ObservedTest{Name: f, Status: StatusPass})
		}
	}
	return p, nil
}

// run evaluates the row push by push, as successive CI runs would, and
// returns what each decided: the policy's state, with the trip reason when
// it tripped.
func (s scenario) run() []string {
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var ledger []Push
	var out []string
	var commits []Commit
	branches := map[int][]Commit{} // the branch's commits at each push's head
	attempts := map[int64]int{}    // the newest attempt of each run
	everFailed := map[string]bool{}
	for i, sp := range s.pushes {
		head, runID := sha(i+1), int64(i+1)
		if sp.again > 0 && sp.again <= i {
			head, commits = sha(sp.again), append([]Commit(nil), branches[sp.again]...)
			if sp.rerun || sp.leg {
				runID = int64(sp.again)
			}
			if sp.rerun {
				attempts[runID]++
			}
		} else {
			parent := sha(0)
			if len(commits) > 0 {
				parent = commits[len(commits)-1].SHA
			}
			commits = append(commits, Commit{SHA: head, Parent: parent, Subject: fmt.Sprintf("push %d", i+1), Trailers: sp.trailers,
				Files: []FileChange{{Path: "x.go", Change: ChangeModified}}})
			branches[i+1] = append([]Commit(nil), commits...)
		}
		obs := Observation{Head: head, Tests: map[string]ObservedTest{}, Failing: map[string]ObservedTest{}}
		attempts[runID] = max(attempts[runID], 1)
		p := Push{Head: head, ObservedAt: t0.Add(time.Duration(i) * time.Minute), RunID: runID, RunAttempt: attempts[runID], Source: PushFromRun,
			Slice: sp.slice, Complete: true, Tests: map[string]PushTest{}, Declared: map[string]PushTest{}}
		if sp.infraKind != "" {
			obs.Infra, obs.InfraKind = "the tests did not run ("+sp.infraKind+")", sp.infraKind
			p.Infra, p.InfraKind, p.Complete = obs.Infra, obs.InfraKind, false
		}
		for _, ot := range sp.tests {
			if obs.Infra != "" {
				break
			}
			obs.Tests[ot.Name] = ot
			pt := PushTest{Status: ot.Status}
			if ot.Status.Failed() {
				obs.Failing[ot.Name] = ot
				pt.Message, pt.Fingerprint = ot.Message, ot.Message
				p.Counts.Failed++
			} else {
				p.Counts.Passed++
			}
			p.Counts.Total++
			p.Tests[ot.Name] = pt
		}
		// Declared: the status at this head of every test a commit's
		// Greenlight-Test names, as the adapter matches it.
		for _, c := range commits {
			if name, ok := TrailerValue(c.Trailers, DefaultTrailerPrefix+"Test"); ok {
				if pt, ok := p.Tests[name]; ok {
					p.Declared[name] = pt
				} else if p.Infra == "" {
					p.Declared[name] = PushTest{Status: StatusAbsent}
				}
			}
		}
		in := Input{Policy: DefaultPolicy(), Commits: append([]Commit(nil), commits...), Observation: obs, Pushes: append(append([]Push(nil), ledger...), p),
			Branch: s.branch, Slice: s.slice, Phase: s.phase, Threshold: s.threshold, Anomalies: s.anomalies}
		in.Policy.Name = s.policy
		if len(s.base) > 0 {
			in.BaseFailing, in.BaseObserved = s.base, true
		}
		if s.tampered {
			in.Ledger = LedgerInfo{Signed: true, Source: "check-runs", Tampered: []string{sha(99)}}
		}
		if s.elsewhere != nil {
			in.Elsewhere = []OpenElsewhere{{Where: "#7", Reason: TripNoProgress, Tests: s.elsewhere, SameTree: sp.tree}}
		}
		d := Evaluate(in)
		got := d.PolicyState
		if d.Tripped {
			got += ":" + string(d.TripReason)
		}
		out = append(out, got)
		// The ledger keeps what this run saw and decided, as a later run
		// reads it: the failing tests, and those that failed at an earlier
		// push with their status now (absent when the results lack them).
		kept := p
		kept.Source, kept.Complete, kept.Tests = PushFromLedger, false, map[string]PushTest{}
		if kept.Slice == "" {
			kept.Slice = d.Slice
		}
		for name, pt := range p.Tests {
			if pt.Status.Failed() || everFailed[name] {
				kept.Tests[name] = pt
			}
		}
		for name := range everFailed {
			if _, ok := p.Tests[name]; !ok && p.Infra == "" {
				kept.Tests[name] = PushTest{Status: StatusAbsent}
			}
		}
		for name, pt := range p.Tests {
			if pt.Status.Failed() {
				everFailed[name] = true
			}
		}
		kept.Verdict = &Verdict{State: d.State, TripReason: d.TripReason, TotalFailed: d.TotalFailed}
		if sp.reset {
			kept.Reset = &ResetRecord{Author: "maintainer", Text: "/breaker reset", At: kept.ObservedAt.Add(30 * time.Second)}
			kept.Verdict = &Verdict{State: StateClosed}
		}
		ledger = append(ledger, kept)
	}
	return out
}
