package action

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/report"
)

// onComment runs a /breaker command from a pull request comment, once the
// commenter is verified as a human writer who is not the agent.
func onComment(ctx context.Context, r *run, action string, c actionenv.IssueComment) Outcome {
	if action != "created" {
		r.ax.Logf("breaker: nothing to do: comment %s (commands run when a comment is created)", action)
		return Outcome{}
	}
	cmd, ok := parseCommand(c.Body)
	if !ok {
		r.ax.Logf("breaker: nothing to do: the comment is not a /breaker command")
		return Outcome{}
	}
	if !c.OnPullRequest {
		r.ax.Logf("breaker: nothing to do: /breaker commands act on pull requests, and #%d is an issue", c.Issue)
		return Outcome{}
	}
	if cmd.Problem != "" {
		return refuse(ctx, r, c, cmd, cmd.Problem)
	}
	if why := notAPerson(r, c); why != "" {
		return refuse(ctx, r, c, cmd, why)
	}
	pr, err := r.api.pulls.PullRequest(ctx, c.Issue)
	if err != nil {
		return r.fail("cannot read the pull request", fmt.Errorf("read pull request #%d: %w", c.Issue, err))
	}
	if pr.State != "" && pr.State != "open" {
		return refuse(ctx, r, c, cmd, "the pull request is "+pr.State)
	}
	rs, err := readState(ctx, r, pr.Number, pr.HeadRef, pr.BaseSHA)
	if err != nil {
		return r.fail("cannot read the ledger", err)
	}
	r.state = &rs
	if why, err := verify(ctx, r, c, pr, rs.pushers); err != nil {
		return r.fail("cannot verify the commenter", err)
	} else if why != "" {
		return refuse(ctx, r, c, cmd, why)
	}
	if cmd.Kind == cmdDebug {
		return pullCordComment(ctx, r, c, pr)
	}
	if why, err := oneCommentOneReset(ctx, r, c, rs); err != nil {
		return r.fail("cannot read the comment back", err)
	} else if why != "" {
		return refuse(ctx, r, c, cmd, why)
	}
	return reset(ctx, r, c, cmd, pr)
}

// notAPerson says why the commenter is not a person who may run commands
// ("" when they may be): no author, a bot, or a login of agent-actors.
func notAPerson(r *run, c actionenv.IssueComment) string {
	login := c.Author
	switch {
	case login == "":
		return "the comment has no author"
	case strings.EqualFold(c.AuthorType, "Bot") || strings.HasSuffix(strings.ToLower(login), "[bot]"):
		return login + " is a bot; only a person may run breaker commands"
	case listedAgent(r, login):
		return login + " is listed in agent-actors: the agent may never reset or debug its own breaker"
	}
	return ""
}

// verify says why the commenter may not run commands on pr ("" when they
// may): the pull request's author (unless allow-pr-author) and whoever
// wrote or pushed its commits are treated as the agent, which may not reset
// itself; people need write, maintain or admin permission, asked of the
// permission API.
func verify(ctx context.Context, r *run, c actionenv.IssueComment, pr forge.PullRequest, pushers []string) (string, error) {
	login := c.Author
	switch {
	case forge.SameLogin(login, pr.Author) && !r.in.AllowPRAuthor:
		return login + " opened the pull request, so is treated as the agent, which may not reset or debug its own breaker " +
			"(set allow-pr-author: true if people open the agent's pull requests)", nil
	case slices.ContainsFunc(pushers, func(p string) bool { return forge.SameLogin(p, login) }):
		return login + " wrote or pushed commits of the pull request, so is treated as the agent, which may not reset or debug its own breaker", nil
	}
	perm, err := r.api.people.Permission(ctx, login)
	if err != nil {
		return "", fmt.Errorf("ask GitHub the permission of %s: %w", login, err)
	}
	if !slices.Contains(evaluate.WriterPermissions, perm) {
		return login + " has " + perm + " permission on the repository; breaker commands need write, maintain or admin", nil
	}
	return "", nil
}

// oneCommentOneReset says why the comment may not reset ("" when it may):
// a re-run of the workflow run replays the original comment, so only
// attempt 1 acts; a comment the ledger already records a reset for has
// been used; and the comment, read back through the API, must still
// exist, unedited, with the payload's body and author. So a maintainer's
// one comment gives exactly one reset, and a payload replayed or a
// comment changed after the fact gives none.
func oneCommentOneReset(ctx context.Context, r *run, c actionenv.IssueComment, rs remoteState) (string, error) {
	if r.gh.RunAttempt > 1 {
		return fmt.Sprintf("this is attempt %d of the workflow run, which replays the comment of attempt 1: a reset is one comment, once (comment the command again)", r.gh.RunAttempt), nil
	}
	if c.ID <= 0 {
		return "the event names no comment id, so the comment cannot be read back", nil
	}
	for _, e := range rs.ledger.Entries {
		if e.Reset != nil && e.Reset.CommentID == c.ID {
			return fmt.Sprintf("comment %d already reset slice %s at %s: a reset is one comment, once (comment the command again)",
				c.ID, e.Slice, breaker.ShortSHA(e.Head)), nil
		}
	}
	got, found, err := r.api.comments.GetComment(ctx, c.ID)
	switch {
	case err != nil:
		return "", err
	case !found:
		return fmt.Sprintf("comment %d was deleted", c.ID), nil
	case got.Edited || got.Body != c.Body:
		return fmt.Sprintf("comment %d was edited after it was written; a reset acts on a comment as it was written (comment the command again)", c.ID), nil
	case !forge.SameLogin(got.Author, c.Author):
		return fmt.Sprintf("comment %d is by %s on GitHub, not by %s as the event says", c.ID, got.Author, c.Author), nil
	}
	return "", nil
}

// refuse answers a command that will not run, with why: a reply on the pull
// request (plain text, no mentions), a warning annotation, the summary.
// A refused command is an answer, not a failure of the check.
func refuse(ctx context.Context, r *run, c actionenv.IssueComment, cmd breakerCmd, why string) Outcome {
	name := "/breaker"
	if cmd.Kind != "" {
		name += " " + string(cmd.Kind)
	}
	msg := fmt.Sprintf("Refused %s from %s: %s.", name, c.Author, why)
	r.note("%s", msg)
	if r.in.Comment {
		body := "**Circuit breaker:** " + report.EscapeText(r.red.Clean(msg)) + "\n"
		_, err := r.api.comments.CreateComment(ctx, c.Issue, body)
		r.noteWrite("answer the command on #"+strconv.Itoa(c.Issue), err)
	}
	r.ax.Annotate(actionenv.LevelWarning, "Circuit breaker command refused", report.SafeLine(r.red.Clean(msg)))
	summary := "## Circuit breaker: command refused\n\n" + report.EscapeText(r.red.Clean(msg)) + "\n" + notesMarkdown(r)
	if err := r.ax.WriteSummary(summary); err != nil {
		r.ax.Logf("breaker: step summary not written: GITHUB_STEP_SUMMARY is unusable")
	}
	r.ax.Untrusted("breaker: " + report.SafeLine(r.red.Clean(msg)))
	return Outcome{}
}
