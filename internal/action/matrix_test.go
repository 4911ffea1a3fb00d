package action_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A matrix hides no platform's failure (issue 50): two breaker runs on
// one head — a matrix's legs, which share the workflow run and its
// attempt, or two workflows — one reading a failing result and the one
// finishing later a passing one: the push is failing, and three such
// pushes trip. A re-run (a higher attempt of the run) still replaces what
// it re-runs, as a re-run of a flaky test may.
func TestMatrix_AFailingLegIsNeverHiddenByALaterPass(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"matrix legs", "two workflows", "a re-run"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.git("checkout", "-q", "-b", "agent/fix-login")
			var o outcome
			for push := range 3 {
				r.commit(fmt.Sprintf("Fix the login, take %d", push+1))
				pr := r.open(7, "agent/fix-login")
				run := 9100 + push
				for leg, status := range []string{"fail", "pass"} {
					switch how {
					case "matrix legs":
						r.env["GITHUB_RUN_ID"], r.env["GITHUB_RUN_ATTEMPT"] = fmt.Sprint(run), "1"
					case "two workflows":
						r.env["GITHUB_RUN_ID"], r.env["GITHUB_RUN_ATTEMPT"] = fmt.Sprint(run*10+leg), "1"
					case "a re-run":
						r.env["GITHUB_RUN_ID"], r.env["GITHUB_RUN_ATTEMPT"] = fmt.Sprint(run), fmt.Sprint(leg+1)
					}
					r.results(map[string]string{"TestLogin": status, "TestLogout": "pass"})
					event := "synchronize"
					if push == 0 && leg == 0 {
						event = "opened"
					}
					o = r.pullRequest(event, pr)
					if o.Err != nil || o.Decision == nil {
						t.Fatalf("push %d, leg %d: %v\n%s", push+1, leg+1, o.Err, o.stdout)
					}
				}
			}
			want := map[string]string{"matrix legs": "OPEN", "two workflows": "OPEN", "a re-run": "CLOSED"}[how]
			if o.state() != want {
				t.Fatalf("after three pushes, each failing on one leg and passing on the one that finished later: %q, want %s\n%s", o.state(), want, o.stdout)
			}
		})
	}
}

// A joined workflow's matrix uploads one artifact a leg (test-results-0,
// test-results-1, …: upload-artifact refuses two of one name), and the
// breaker on workflow_run reads them all with results-artifact
// test-results-* (one listing, one download each): the leg that fails is
// failing at that push whatever the others say, three such pushes trip,
// and a run that uploaded none of them is named.
func TestMatrix_EveryLegsArtifactIsRead(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.hardened()
	r.inputs["results-artifact"] = "test-results-*"
	r.inputs["results"] = "**/junit.xml"
	r.git("checkout", "-q", "-b", "agent/fix-login")
	var o outcome
	for push := range 3 {
		r.commit(fmt.Sprintf("Fix the login, take %d", push+1))
		runID := int64(8200 + push)
		for leg, status := range []string{"fail", "pass", "pass"} {
			r.namedArtifact(runID, fmt.Sprintf("test-results-%d", leg), "junit.xml", junitOf(map[string]string{"TestLogin": status, "TestLogout": "pass"}))
		}
		r.srv.AddArtifact(runID, "coverage", []byte("not a zip the breaker reads"))
		o = r.workflowRun(runID, r.open(7, "agent/fix-login"), "failure", "")
		if o.Err != nil || o.Decision == nil {
			t.Fatalf("push %d: %v\n%s", push+1, o.Err, o.stdout)
		}
		if !strings.Contains(o.stdout, "from 3 artifact(s) test-results-*") {
			t.Errorf("push %d: the log does not say three legs were read:\n%s", push+1, o.stdout)
		}
	}
	if o.state() != "OPEN" {
		t.Fatalf("three pushes failing on one leg of three: %q, want OPEN\n%s", o.state(), o.stdout)
	}
	o = r.workflowRun(8300, r.open(7, "agent/fix-login"), "failure", "")
	if o.Err == nil || !strings.Contains(o.Err.Error(), `"test-results-*"`) {
		t.Fatalf("a run with no leg's artifact: %v, want the pattern named", o.Err)
	}
}

// namedArtifact uploads junit as tested run runID's artifact name,
// holding it at path.
func (r *rig) namedArtifact(runID int64, name, path, junit string) {
	r.t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(path)
	if err != nil {
		r.t.Fatal(err)
	}
	_, _ = w.Write([]byte(junit))
	if err := zw.Close(); err != nil {
		r.t.Fatal(err)
	}
	r.srv.AddArtifact(runID, name, buf.Bytes())
}

// The agent's workflow names the artifacts: a pattern reads at most 16 of
// them and only names a folder can have; past either the run fails with
// the reason, and no file of any of them is read.
func TestMatrix_ArtifactsTheAgentNamesAreBounded(t *testing.T) {
	t.Parallel()
	for name, add := range map[string]func(r *rig, runID int64){
		"17 legs": func(r *rig, runID int64) {
			for leg := range 17 {
				r.namedArtifact(runID, fmt.Sprintf("test-results-%d", leg), "junit.xml", junitOf(map[string]string{"TestLogin": "pass"}))
			}
		},
		"a name that climbs": func(r *rig, runID int64) {
			r.namedArtifact(runID, "test-results-0", "junit.xml", junitOf(map[string]string{"TestLogin": "pass"}))
			r.namedArtifact(runID, "test-results-/../../escape", "junit.xml", junitOf(map[string]string{"TestLogin": "pass"}))
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.hardened()
			r.inputs["results-artifact"] = "test-results-*"
			r.inputs["results"] = "**/junit.xml"
			r.git("checkout", "-q", "-b", "agent/fix-login")
			r.commit("Fix the login")
			add(r, 8400)
			o := r.workflowRun(8400, r.open(7, "agent/fix-login"), "success", "")
			want := map[string]string{"17 legs": "over the cap of 16", "a name that climbs": "not a name a folder can have"}[name]
			if o.Err == nil || !strings.Contains(o.Err.Error(), want) {
				t.Fatalf("%v, want %q", o.Err, want)
			}
			if o.Decision != nil {
				t.Errorf("a verdict from refused artifacts: %s", o.Decision.State)
			}
		})
	}
}
