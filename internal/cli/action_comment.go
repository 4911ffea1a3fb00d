package cli

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/report"
)

// writerPermissions are the repository permissions that may run commands.
var writerPermissions = []string{"admin", "maintain", "write"}

// onComment runs a /breaker command from a pull request comment, once the
// commenter is verified as a human writer who is not the agent.
func (r *actionRun) onComment(action string, c actionenv.IssueComment) int {
	if action != "created" {
		r.ax.Logf("breaker: nothing to do: comment %s (commands run when a comment is created)", action)
		return ExitClosed
	}
	cmd, ok := parseCommand(c.Body)
	if !ok {
		r.ax.Logf("breaker: nothing to do: the comment is not a /breaker command")
		return ExitClosed
	}
	if !c.OnPullRequest {
		r.ax.Logf("breaker: nothing to do: /breaker commands act on pull requests, and #%d is an issue", c.Issue)
		return ExitClosed
	}
	if cmd.problem != "" {
		return r.refuse(c, cmd, cmd.problem)
	}
	if why, err := r.verify(c); err != nil {
		return r.fail("cannot verify the commenter", err)
	} else if why != "" {
		return r.refuse(c, cmd, why)
	}
	pr, err := r.forge.PullRequest(r.ctx, c.Issue)
	if err != nil {
		return r.fail("cannot read the pull request", fmt.Errorf("read pull request #%d: %w", c.Issue, err))
	}
	if pr.State != "" && pr.State != "open" {
		return r.refuse(c, cmd, "the pull request is "+pr.State)
	}
	if cmd.kind == cmdDebug {
		ack := fmt.Sprintf("%s asked for the diagnostic (/breaker debug) at %s.", c.Author, r.stamp())
		return r.evaluateAndPublish(target{head: pr.HeadSHA, branch: pr.HeadRef, pr: &pr, force: true, readOnly: true, ack: ack})
	}
	return r.reset(c, cmd, pr)
}

// verify says why the commenter may not run commands ("" when they may):
// bots and the agent's own identities never may; people need write,
// maintain or admin permission, asked of the permission API.
func (r *actionRun) verify(c actionenv.IssueComment) (string, error) {
	login := c.Author
	switch {
	case login == "":
		return "the comment has no author", nil
	case strings.EqualFold(c.AuthorType, "Bot") || strings.HasSuffix(strings.ToLower(login), "[bot]"):
		return login + " is a bot; only a person may run breaker commands", nil
	case slices.ContainsFunc(r.in.AgentActors, func(a string) bool { return strings.EqualFold(a, login) }):
		return login + " is listed in agent-actors: the agent may never reset or debug its own breaker", nil
	}
	perm, err := r.forge.Permission(r.ctx, login)
	if err != nil {
		return "", fmt.Errorf("ask GitHub the permission of %s: %w", login, err)
	}
	if !slices.Contains(writerPermissions, perm) {
		return login + " has " + perm + " permission on the repository; breaker commands need write, maintain or admin", nil
	}
	return "", nil
}

// refuse answers a command that will not run, with why: a reply on the pull
// request (plain text, no mentions), a warning annotation, the summary.
// The exit code is 0: a refused command is an answer, not a failure of the
// check.
func (r *actionRun) refuse(c actionenv.IssueComment, cmd breakerCmd, why string) int {
	name := "/breaker"
	if cmd.kind != "" {
		name += " " + string(cmd.kind)
	}
	msg := fmt.Sprintf("Refused %s from %s: %s.", name, c.Author, why)
	r.note("%s", msg)
	if r.in.Comment {
		body := "**Circuit breaker:** " + report.EscapeText(r.red.Clean(msg)) + "\n"
		_, err := r.forge.CreateComment(r.ctx, c.Issue, body)
		r.noteWrite("answer the command on #"+strconv.Itoa(c.Issue), err)
	}
	r.ax.Annotate(actionenv.LevelWarning, "Circuit breaker command refused", report.SafeLine(r.red.Clean(msg)))
	summary := "## Circuit breaker: command refused\n\n" + report.EscapeText(r.red.Clean(msg)) + "\n" + r.notesMarkdown()
	if err := r.ax.WriteSummary(summary); err != nil {
		r.ax.Logf("breaker: step summary not written: GITHUB_STEP_SUMMARY is unusable")
	}
	r.ax.Untrusted("breaker: " + report.SafeLine(r.red.Clean(msg)))
	return ExitClosed
}

// reset moves the slice's reset tag to the pull request's head, after a
// rollback commit when asked, then publishes the diagnostic with the
// acknowledgement: counts restart from there.
func (r *actionRun) reset(c actionenv.IssueComment, cmd breakerCmd, pr breaker.PullRequest) int {
	if cmd.slice != "" {
		r.in.Slice = cmd.slice
	}
	t := target{head: pr.HeadSHA, branch: pr.HeadRef, pr: &pr}
	ev, remote, err := r.evaluate(t)
	if err != nil {
		return r.fail("cannot evaluate the branch", err)
	}
	d := ev.Decision
	if !actionenv.ValidSlice(d.Slice) {
		return r.refuse(c, cmd, "no slice to reset: name one, e.g. /breaker reset S-3")
	}
	head := pr.HeadSHA
	if cmd.rollback {
		if head, err = r.rollback(pr, d, remote); err != nil {
			return r.fail("cannot roll back", err)
		}
	}
	if err := r.moveResetTag(d.Slice, head); err != nil {
		return r.fail("cannot record the reset", err)
	}
	r.noteDone("reset slice %s at %s", d.Slice, short(head))
	// The workspace holds the pull request's head, not a rollback commit:
	// evaluate that head as if reset there (the rollback commit is no attempt).
	t.head, t.resetAt = pr.HeadSHA, pr.HeadSHA
	t.ack = resetAck(c.Author, d.Slice, r.stamp(), cmd)
	ev, remote, err = r.evaluate(t)
	if err != nil {
		return r.fail("cannot evaluate the branch after the reset", err)
	}
	r.publish(t, ev.Decision, remote)
	return ExitClosed
}

// rollback adds a commit on top of the pull request's head whose tree is
// the checkpoint's, and fast-forwards the branch to it: history is kept and
// nothing is force-pushed. It returns the new head.
func (r *actionRun) rollback(pr breaker.PullRequest, d breaker.Decision, remote remoteRefs) (string, error) {
	if pr.Fork {
		return "", errors.New("the pull request's branch lives in a fork, which this token may not push to; roll back by hand")
	}
	cp := remote.checkpoint
	if cp == "" {
		cp = d.Checkpoint.SHA
	}
	if cp == "" {
		return "", fmt.Errorf("slice %s has no checkpoint to roll back to", d.Slice)
	}
	tree, err := r.forge.CommitTree(r.ctx, cp)
	if err != nil {
		return "", fmt.Errorf("read the checkpoint %s: %w", short(cp), err)
	}
	msg := fmt.Sprintf("Roll back slice %s to checkpoint %s\n\nThe tree of %s, restored by /breaker reset --rollback.\n\n%s%s: %s\n",
		d.Slice, short(cp), cp, r.policyPrefix(), breaker.TrailerSlice, d.Slice)
	sha, err := r.forge.CreateCommit(r.ctx, msg, tree, []string{pr.HeadSHA})
	if err != nil {
		return "", fmt.Errorf("create the rollback commit: %w", err)
	}
	if err := r.forge.UpdateRef(r.ctx, "heads/"+pr.HeadRef, sha, false); err != nil {
		return "", fmt.Errorf("fast-forward %s to the rollback commit %s: %w", pr.HeadRef, short(sha), err)
	}
	r.noteDone("rolled %s back to the tree of %s with commit %s", pr.HeadRef, short(cp), short(sha))
	return sha, nil
}

func (r *actionRun) policyPrefix() string {
	if r.in.TrailerPrefix != "" {
		return r.in.TrailerPrefix
	}
	return actionenv.DefaultTrailerPrefix
}

// resetAck is the acknowledgement shown in the sticky comment: who, when,
// what, and the guidance verbatim (rendered as escaped text).
func resetAck(who, slice, when string, cmd breakerCmd) string {
	what := "reset"
	if cmd.rollback {
		what = "reset and rolled back"
	}
	ack := fmt.Sprintf("%s %s %s at %s; counts restart from here.", who, what, slice, when)
	if cmd.guidance != "" {
		ack += "\nGuidance: " + cmd.guidance
	}
	return ack
}

func (r *actionRun) stamp() string {
	return r.deps.now().UTC().Format("2006-01-02 15:04 UTC")
}
