package action_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

// The binding deployment breaker init writes runs the breaker as a GitHub
// App of its own (appRigID); the agent's workflow holds only its
// GITHUB_TOKEN, a token of the GitHub Actions app.
const (
	appRigID   = 4242001
	agentToken = "agent-workflow-token-0815"
)

// newAppRig is the binding deployment: the App's token, a ledger key, and
// the agent's own token beside them.
func newAppRig(t *testing.T) *rig {
	t.Helper()
	r := newRigWith(t, ghfake.WithApp(appRigID, "greenlight-breaker"), ghfake.WithAgentToken(agentToken))
	r.inputs["app-id"] = fmt.Sprint(appRigID)
	r.inputs["ledger-key"] = "a-ledger-key-of-the-app-rig"
	return r
}

// patchCheckRun sends PATCH check-runs/{id} with token, as a workflow
// step with `checks: write` can, and returns the status.
func (r *rig) patchCheckRun(token string, id int64, body map[string]any) int {
	r.t.Helper()
	data, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPatch, fmt.Sprintf("%srepos/%s/%s/check-runs/%d", r.srv.URL(), r.srv.Owner(), r.srv.Repo(), id), strings.NewReader(string(data)))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// No way past, round three (issue 46): after a trip the agent renames every
// breaker check run, or concludes the tripped one success. With its own
// token GitHub refuses (only the App that created a run may change it);
// and should a holder of the App's token do it, the breaker reads its runs
// by the App whatever their name, names the tampering, and every later
// failing push is OPEN — with ledger-read newest and every-page.
func TestTamper_RenamedOrReconcludedCheckRunsStayOpen(t *testing.T) {
	t.Parallel()
	for _, read := range []string{"newest", "every-page"} {
		for _, attack := range []string{"rename every run", "conclude the tripped run success"} {
			t.Run(read+"/"+attack, func(t *testing.T) {
				t.Parallel()
				r := newAppRig(t)
				r.inputs["ledger-read"] = read
				r.git("checkout", "-q", "-b", "agent/fix-login")
				tripped := r.tripOn(7, "agent/fix-login")
				change := func(token string) (statuses []int) {
					for _, c := range r.srv.CheckRuns() {
						switch {
						case attack == "rename every run":
							statuses = append(statuses, r.patchCheckRun(token, c.ID, map[string]any{"name": "lint"}))
						case c.HeadSHA == tripped:
							statuses = append(statuses, r.patchCheckRun(token, c.ID, map[string]any{"conclusion": "success"}))
						}
					}
					return statuses
				}
				for _, st := range change(agentToken) {
					if st != http.StatusForbidden {
						t.Fatalf("the agent's token changed the App's check run: status %d, want 403", st)
					}
				}
				if c := r.checkRun(tripped); c.Conclusion != "failure" {
					t.Fatalf("the tripped check run: %q after the agent's try", c.Conclusion)
				}
				change(rigToken) // a holder of the App's token: the breaker still sees it
				for i := range 2 {
					r.commit(fmt.Sprintf("Fix the login, take %d", i+4))
					r.results(map[string]string{"TestLogin": "fail"})
					r.open(7, "agent/fix-login")
					o := r.push("agent/fix-login")
					if o.state() != "OPEN" || !o.Enforce || o.Err != nil {
						t.Fatalf("failing push %d after the tampering: %q (err %v); want OPEN, exit 42\n%s", i+1, o.state(), o.Err, o.stdout)
					}
					if !strings.Contains(o.stdout, "tampering") {
						t.Errorf("failing push %d: the report does not name the tampering:\n%s", i+1, o.stdout)
					}
					if c := r.checkRun(r.git("rev-parse", "HEAD")); c.Conclusion != "failure" {
						t.Errorf("failing push %d: check %q, want failure", i+1, c.Conclusion)
					}
				}
			})
		}
	}
}

// Without an App of its own the ledger binds nothing, and the log and the
// step summary say so and why (issue 46); with one they do not.
func TestTamper_WithoutAnAppTheLedgerIsNotBinding(t *testing.T) {
	t.Parallel()
	for _, app := range []bool{false, true} {
		r := newRig(t)
		if app {
			r = newAppRig(t)
		}
		r.git("checkout", "-q", "-b", "agent/fix-login")
		r.commit("Fix the login")
		r.results(map[string]string{"TestLogin": "fail"})
		r.open(7, "agent/fix-login")
		o := r.push("agent/fix-login")
		for where, text := range map[string]string{"log": o.stdout, "step summary": o.summary} {
			if got := strings.Contains(text, "the ledger is not binding") && strings.Contains(text, "rename or re-conclude"); got == app {
				t.Errorf("app %v: the %s says the ledger is not binding: %v\n%s", app, where, got, text)
			}
		}
	}
}
