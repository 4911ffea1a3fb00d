package report

import (
	"fmt"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// policyInput is a branch of n commits, each pushed and observed, with
// the tests of each push as given (name → status, or "fail:<message>").
func policyInput(policy string, pushes []map[string]string) breaker.Input {
	t0 := time.Date(2026, 2, 18, 9, 0, 0, 0, time.UTC)
	in := breaker.Input{Policy: breaker.Policy{Name: policy}, Branch: "agent/fix"}
	for i, tests := range pushes {
		c := breaker.Commit{SHA: sha(20 + i), Parent: sha(19 + i), Subject: fmt.Sprintf("take %d", i+1)}
		in.Commits = append(in.Commits, c)
		p := breaker.Push{Head: c.SHA, ObservedAt: t0.Add(time.Duration(i) * 10 * time.Minute), Source: breaker.PushFromLedger,
			Tests: map[string]breaker.PushTest{}, Declared: map[string]breaker.PushTest{}}
		for name, st := range tests {
			pt := breaker.PushTest{Status: breaker.TestStatus(st)}
			if len(st) > 5 && st[:5] == "fail:" {
				pt = breaker.PushTest{Status: breaker.StatusFail, Message: st[5:], Fingerprint: "fp-" + st[5:]}
			}
			p.Tests[name] = pt
			p.Counts.Total++
			if pt.Status.Failed() {
				p.Counts.Failed++
			} else if pt.Status == breaker.StatusPass {
				p.Counts.Passed++
			}
		}
		if i == len(pushes)-1 {
			p.Source, p.Complete = breaker.PushFromRun, true
			in.Observation = breaker.Observation{Head: c.SHA, Tests: map[string]breaker.ObservedTest{}}
		}
		in.Pushes = append(in.Pushes, p)
	}
	return in
}

var loginFails = map[string]string{"auth.TestLogin": "fail:want 200, got 503 `<img src=x>`", "auth.TestLogout": "pass"}

func prpOpenDecision() breaker.Decision {
	return breaker.Evaluate(policyInput(breaker.PolicyPRP, []map[string]string{loginFails, loginFails, loginFails}))
}

func prpHalfOpenDecision() breaker.Decision {
	return breaker.Evaluate(policyInput(breaker.PolicyPRP, []map[string]string{loginFails, loginFails}))
}

func bmadDecision() breaker.Decision {
	in := policyInput(breaker.PolicyBMAD, []map[string]string{loginFails, loginFails, loginFails})
	in.Threshold = 3
	return breaker.Evaluate(in)
}

func lizaDecision() breaker.Decision {
	in := policyInput(breaker.PolicyLiza, []map[string]string{{"auth.TestLogin": "pass"}})
	for i, task := range []string{"task-1", "task-2"} {
		in.Anomalies = append(in.Anomalies, breaker.Anomaly{Timestamp: fmt.Sprintf("2026-02-18T09:%02d:00Z", i), Task: task, Reporter: "coder-1",
			Type: "external_blocker", Details: map[string]string{"blocker_service": "payments-sandbox", "spec_ref": "specs/payments.md#FR-3"}})
	}
	return breaker.Evaluate(in)
}
