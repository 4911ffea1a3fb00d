package action

import (
	"context"
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/report"
)

// maxBaseListed bounds the failing tests the base observation's summary
// names.
const maxBaseListed = 50

// observeBase records what CI saw on a push to the default branch: the
// ledger entry of the base commit (every test's status, no verdict), which
// the pull requests based on it read to tell the base's failures from
// theirs. Nothing is judged there; the run exits 0.
func observeBase(ctx context.Context, r *run, head, branch string) Outcome {
	opts, err := r.options(loadSpec{head: head, branch: branch, base: head, baseRef: branch, baseSource: breaker.BaseFromEvent})
	if err != nil {
		return r.fail("cannot observe the default branch", err)
	}
	entry, err := evaluate.BaseEntry(ctx, opts, head)
	if err != nil {
		return r.fail("cannot observe the default branch", err)
	}
	entry = redactEntry(r, entry)
	if r.in.AppID != 0 {
		entry.Check = r.in.CheckName
	}
	var key []byte
	if r.in.LedgerKey != "" {
		key = []byte(r.in.LedgerKey)
	}
	block, entry := ledger.Encode(entry, key)
	var failing []string
	for _, t := range entry.Tests {
		if t.Status.Failed() {
			failing = append(failing, t.FullName())
		}
	}
	title := fmt.Sprintf("base observation: %d tests, %d failing on %s", entry.Counts.Total, len(failing), branch)
	summary := "## Circuit breaker: the base branch as CI saw it\n\n" +
		"Pull requests based on this commit read this observation: a test failing here fails on the base, and is never counted as a pull request's.\n\n"
	switch {
	case entry.Infra != nil:
		title = "base observation: the tests did not run: " + *entry.Infra
		summary += "The tests did not run here: " + report.CodeBlock(*entry.Infra, "text") + "\n"
	case len(failing) == 0:
		summary += "Every test passes here.\n"
	default:
		listed := failing[:min(len(failing), maxBaseListed)]
		summary += "Failing here:\n\n" + report.CodeBlock(strings.Join(listed, "\n"), "text") + "\n"
		if len(failing) > len(listed) {
			summary += fmt.Sprintf("\nand %d more.\n", len(failing)-len(listed))
		}
	}
	conclusion := "success"
	if entry.Infra != nil || len(failing) > 0 {
		conclusion = "neutral" // the base's state, not a verdict of the breaker
	}
	run := redactCheckRun(r, CheckRun{Name: r.in.CheckName, HeadSHA: head, Conclusion: conclusion,
		Title: report.SafeLine(report.Clip(title, 200)), Summary: summary,
		Text: "What CI saw on the base branch at this commit, read by the pull requests based on it.\n\n" + block})
	_, err = r.api.ledger.CreateCheckRun(ctx, run)
	r.noteWrite("record the base observation of "+branch+" at "+breaker.ShortSHA(head), err)
	r.ax.Logf("breaker: %s is the default branch: recorded what CI saw here (%d tests, %d failing) for the pull requests based on it",
		report.SafeLine(branch), entry.Counts.Total, len(failing))
	writeNotesSummary(r, "the base branch observed")
	return Outcome{}
}
