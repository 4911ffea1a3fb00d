package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/action"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// Two replicas (or two workers of one) may judge two pushes of one pull
// request side by side: both read the ledger before either wrote, and
// the newer head's verdict misses the older head's observation — the
// third failing push of a spiral would pass. No coordinator orders them;
// GitHub does, after the fact. Each run of a workflow_run reads the pull
// request's ledger once more after it wrote its entry (the newest 100
// commits: one query). A check run of the pull request's ledger that its
// own read did not hold was written side by side with it. The pull
// request's newest judged head is then judged again, once, by a run whose
// read holds every entry written before it started: whichever of two
// side-by-side runs read last after both wrote finds the other's entry,
// so the newest head's verdict is the one a single process gives. The
// re-run is an observation of that head's tested run, which the ledger
// already holds: it counts once.

// settle reads the pull request's ledger after the run that read read
// wrote its entry, and returns the delivery that judges the pull
// request's newest judged head again when an entry of it was written side
// by side with the run; nil when none was.
func (s *Server) settle(ctx context.Context, d delivery, client *ghapi.Client, read *action.LedgerRead) (*delivery, error) {
	q := read.Query
	q.Newest, q.Before, q.BeforeDepth, q.Base = true, "", 0, ""
	st, err := client.ReadLedger(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read the ledger again after writing: %w", err)
	}
	newest := map[string]ledger.Entry{} // head → its newest entry of the pull request
	var unread bool
	for _, run := range st.Runs {
		if run.AppID != s.set.AppID {
			continue
		}
		e, err := ledger.Decode(run.Text)
		if err != nil || e.PR != q.PR || e.Kind == ledger.KindBase {
			continue // the Action reports a rewritten entry; another pull request's is not this line
		}
		head := strings.ToLower(e.Head)
		if cur, ok := newest[head]; !ok || run.ID > cur.CheckRunID {
			e.CheckRunID = run.ID
			newest[head] = e
		}
		ours := breaker.SameSHA(e.Head, read.Head) && e.RunID == d.runID
		unread = unread || (!read.CheckRuns[run.ID] && !ours)
	}
	if !unread {
		return nil, nil
	}
	for i := len(st.Commits) - 1; i >= 0; i-- {
		e, ok := newest[strings.ToLower(st.Commits[i])]
		if !ok {
			continue
		}
		if breaker.SameSHA(e.Head, read.Head) {
			again := d
			again.settled = true
			return &again, nil
		}
		if e.RunID <= 0 {
			return nil, nil // not a tested run's entry: nothing to judge again
		}
		next, err := s.deliveryOf(ctx, d, client, e.RunID)
		if next != nil {
			next.settled = true
		}
		return next, err
	}
	return nil, nil
}

// deliveryOf is the completed delivery of workflow run id, as if GitHub
// had sent it: the run as GitHub's REST API has it now (its workflow-run
// object is a workflow_run payload's workflow_run), with d's repository,
// installation and sender.
func (s *Server) deliveryOf(ctx context.Context, d delivery, client *ghapi.Client, id int64) (*delivery, error) {
	run, err := client.WorkflowRun(ctx, id)
	if err != nil {
		return nil, err
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(d.body, &p); err != nil {
		return nil, fmt.Errorf("the delivery's payload: %w", err)
	}
	body, err := json.Marshal(map[string]json.RawMessage{"action": json.RawMessage(`"completed"`), "workflow_run": run,
		"repository": p["repository"], "installation": p["installation"], "sender": p["sender"]})
	if err != nil {
		return nil, err
	}
	next, why := parseDelivery("workflow_run", d.id+"/run-"+strconv.FormatInt(id, 10), body)
	if why != "" {
		return nil, fmt.Errorf("workflow run %d: %s", id, why)
	}
	return &next, nil
}

// retarget points the delivery's files and environment at next: its
// payload, its tested commit in the clone, its run.
func (s *Server) retarget(ctx context.Context, next *delivery, token, dir string, env map[string]string) error {
	if err := os.WriteFile(filepath.Join(dir, "event.json"), next.body, 0o600); err != nil {
		return err
	}
	if _, err := fetchLine(ctx, env["GITHUB_WORKSPACE"], next.cloneURL, next.defaultBranch, next.headSHA, next.baseSHA, authFor(next.cloneURL, token)); err != nil {
		return err
	}
	env["GITHUB_RUN_ID"], env["GITHUB_RUN_ATTEMPT"] = strconv.FormatInt(next.runID, 10), strconv.Itoa(max(next.runAttempt, 1))
	return nil
}
