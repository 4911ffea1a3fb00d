package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ghapi"
	"github.com/greenlight-ci/breaker/internal/report"
)

// rerequested turns a re-requested check run of the App ("Re-run" on the
// greenlight-breaker check; GitHub sends check_run rerequested to the App
// that created the check run alone) into the delivery of its head's
// newest completed run of a tested workflow, judged as when that run
// completed: a re-run of the verdict, from CI's evidence. Its observation
// is one the ledger already holds, so it counts once; a person asks for it
// after a reset, or a changed setting. nil, and why, when there is
// nothing to judge.
func (s *Server) rerequested(ctx context.Context, d delivery, client *ghapi.Client, cfg Config) (*delivery, string, error) {
	if d.checkApp != s.set.AppID {
		return nil, fmt.Sprintf("a check run of App %d, not this App's (%d)", d.checkApp, s.set.AppID), nil
	}
	runs, _, err := client.WorkflowRunsPage(ctx, forge.RunFilter{HeadSHA: d.headSHA}, 1)
	if err != nil {
		return nil, "", err
	}
	for _, run := range runs { // newest first
		if run.Status == "completed" && slices.Contains(cfg.Workflows, run.Name) {
			next, err := s.deliveryOf(ctx, d, client, run.ID)
			return next, "", err
		}
	}
	return nil, fmt.Sprintf("no completed run of the tested workflows (%s: workflows) at %s to judge; re-run the tested workflow",
		ConfigPath, report.SafeLine(breaker.ShortSHA(d.headSHA))), nil
}
