package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/report"
)

// onGate is mode: gate (issue 32), the first step of an agent's workflow:
// read the ledger of the pull request (or branch) the agent is about to
// work on and stop the job, exit 42 with a one-line reason, while its
// breaker is OPEN and no verified reset came after the trip. It writes
// nothing: no check run, no comment, no tag.
func onGate(ctx context.Context, r *run) Outcome {
	pr, branch, err := gateTarget(ctx, r)
	if errors.Is(err, errNothingToGate) {
		r.ax.Logf("breaker gate: %v", err)
		if werr := r.ax.SetOutputs([]actionenv.Output{{Name: "state", Value: string(breaker.StateClosed)}, {Name: "tripped", Value: "false"}}); werr != nil {
			r.ax.Logf("breaker: outputs not written: GITHUB_OUTPUT is unusable")
		}
		return Outcome{Decision: &breaker.Decision{State: breaker.StateClosed}, Enforce: true}
	}
	if err != nil {
		return r.fail("cannot tell which pull request the agent works on", err)
	}
	number := 0
	if pr != nil {
		number, branch = pr.Number, pr.HeadRef
	}
	g, err := readGate(ctx, r, number, branch)
	if err != nil {
		return r.fail("cannot read the ledger", err)
	}
	url := ""
	if number > 0 && g.Open && g.Slice != "" {
		url = gateCommentURL(ctx, r, number, g.Slice)
	}
	line := g.Line()
	outs := []actionenv.Output{
		{Name: "state", Value: map[bool]string{true: string(breaker.StateOpen), false: string(breaker.StateClosed)}[g.Open]},
		{Name: "tripped", Value: strconv.FormatBool(g.Open)},
		{Name: "trip-reason", Value: string(g.Reason)},
		{Name: "slice", Value: g.Slice},
		{Name: "comment-url", Value: url},
	}
	for i := range outs {
		outs[i].Value = report.SafeLine(r.red.Clean(outs[i].Value))
	}
	// Several lines, each made safe when the reset wrote it: the agent's
	// prompt takes the block as it is.
	outs = append(outs, actionenv.Output{Name: "prior-attempts", Value: r.red.Clean(g.Prior)})
	if err := r.ax.SetOutputs(outs); err != nil {
		r.ax.Logf("breaker: outputs not written: GITHUB_OUTPUT is unusable")
	}
	where := "branch " + branch
	if number > 0 {
		where = fmt.Sprintf("pull request #%d", number)
	}
	r.ax.Untrusted("breaker gate: " + where + ": " + line + notesText(r))
	if g.Prior != "" {
		r.ax.Untrusted("breaker gate: what was tried before the reset, for the agent's prompt (output prior-attempts):\n" + r.red.Clean(g.Prior))
	}
	summary := "## Circuit breaker gate: " + where + "\n\n" + report.CodeBlock(line, "text")
	if url != "" {
		summary += "\nThe diagnostic: " + url + "\n"
	}
	if err := r.ax.WriteSummary(summary); err != nil {
		r.ax.Logf("breaker: step summary not written: GITHUB_STEP_SUMMARY is unusable")
	}
	d := breaker.Decision{State: breaker.StateClosed, Slice: g.Slice, TripReason: g.Reason, Tripped: g.Open}
	if g.Open {
		d.State = breaker.StateOpen
		r.ax.Annotate(actionenv.LevelError, "Circuit breaker OPEN: the agent may not work on "+where, line)
	}
	return Outcome{Decision: &d, Enforce: true}
}

// errNothingToGate: the agent was started on an issue no pull request of
// it refers to and no open pull request of its agent is OPEN; its first
// pull request is judged when it pushes.
var errNothingToGate = errors.New("no pull request tied to the issue, and no open pull request of its agent, is OPEN: nothing to gate")

// readGate reads the ledger of pull request number (or of branch, without
// one), verifies its resets against their comments, and reads the gate.
func readGate(ctx context.Context, r *run, number int, branch string) (evaluate.Gate, error) {
	rs, err := readState(ctx, r, number, branch, "")
	if err != nil {
		return evaluate.Gate{}, err
	}
	r.state = &rs
	return gateFollowsAgent(ctx, r, evaluate.GateOf(rs.ledger, evaluate.Run{PR: number, Branch: branch, Commits: rs.commits}), number)
}

// GateReader is what reading the gate needs: the ledger, and the comments
// and permissions its reset records are verified against.
type GateReader interface {
	LedgerStore
	Comments
	People
	forge.Lines
}

// ReadGate is the gate for the command line (breaker gate): the same read
// as mode: gate, through f, with the inputs that shape it (the check
// name, the tag prefix, the app id, the ledger key, the agent's logins);
// the notes say what the read found on the way.
func ReadGate(ctx context.Context, f GateReader, in actionenv.Inputs, number int, branch string) (evaluate.Gate, []string, error) {
	ax := actionenv.New(func(string) string { return "" }, io.Discard)
	r := &run{ax: ax, in: in, api: ports{ledger: f, comments: f, people: f, lines: f}, red: report.NewRedactor(in.Token), policy: breaker.DefaultPolicy()}
	g, err := readGate(ctx, r, number, branch)
	return g, r.notes, err
}

// gateTarget is the pull request the event names (a pull request's, a
// comment on one's, a tested run's), the pull-request input's, or, for a
// push or a dispatch, the branch the workflow runs on.
func gateTarget(ctx context.Context, r *run) (*forge.PullRequest, string, error) {
	ev := r.gh.Event
	if r.in.PullRequest > 0 {
		pr, err := r.api.pulls.PullRequest(ctx, r.in.PullRequest)
		if err != nil {
			return nil, "", fmt.Errorf("read pull request #%d (input pull-request): %w", r.in.PullRequest, err)
		}
		return &pr, "", nil
	}
	switch {
	case ev.PullRequest != nil:
		return ev.PullRequest, "", nil
	case ev.Comment != nil && ev.Comment.OnPullRequest:
		pr, err := r.api.pulls.PullRequest(ctx, ev.Comment.Issue)
		if err != nil {
			return nil, "", fmt.Errorf("read pull request #%d: %w", ev.Comment.Issue, err)
		}
		return &pr, "", nil
	case ev.Comment != nil && ev.Comment.Issue > 0:
		// An agent started on an issue: every line of work tied to it, and
		// every open pull request of its agent, is gated (gateIssue).
		pr, err := gateIssue(ctx, r, ev.Comment.Issue)
		if err != nil || pr == nil {
			return nil, "", err
		}
		return pr, "", nil
	case ev.WorkflowRun != nil:
		pr, err := runPullRequest(ctx, r, *ev.WorkflowRun)
		if err != nil || pr != nil {
			return pr, "", err
		}
		return nil, ev.WorkflowRun.HeadBranch, nil
	}
	if branch, ok := strings.CutPrefix(r.gh.Ref, "refs/heads/"); ok && branch != "" {
		return nil, branch, nil
	}
	return nil, "", errors.New("the event names no pull request and the workflow runs on no branch: give the input pull-request " +
		"(the number of the pull request the agent is about to work on)")
}

// gateCommentURL is the address of the breaker's comment on the slice, ""
// when there is none. Read only: a gate never tidies comments up.
func gateCommentURL(ctx context.Context, r *run, pr int, slice string) string {
	comments := r.state.comments
	if !r.state.complete {
		var err error
		if comments, err = r.api.comments.ListComments(ctx, pr); err != nil {
			r.note("could not list the comments of #%d to link the diagnostic: %v", pr, err)
			return ""
		}
	}
	ours, err := oursOn(ctx, r, comments, slice)
	if err != nil || len(ours) == 0 {
		return ""
	}
	c := newestOf(ours)
	return fmt.Sprintf("%s/%s/%s/pull/%d#issuecomment-%d", r.gh.ServerURL, r.gh.Owner, r.gh.Repo, pr, c.ID)
}
