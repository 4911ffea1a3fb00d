package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/report"
)

// maxCommentBytes keeps the sticky comment under GitHub's 65,536-character
// body limit (bytes ≥ characters).
const maxCommentBytes = 65000

// reportFile is where the JSON report is written, relative to the workspace;
// the report-json output gives this path, which later steps can read.
const reportFile = "breaker-report.json"

// publish writes the decision everywhere it goes: the checkpoint tag (unless
// read only), the sticky comment, the JSON report, the step summary, the
// outputs and the log. A failure to publish is noted and never changes the
// verdict. It returns the exit code.
func (r *actionRun) publish(t target, d breaker.Decision, remote remoteRefs) int {
	cpSHA := remote.checkpoint
	if !t.readOnly && actionenv.ValidSlice(d.Slice) {
		cpSHA = r.ensureCheckpoint(d, remote.checkpoint)
		if cpSHA != "" && !r.in.DryRun {
			// The tag exists now: say so, not "to be created".
			d.Checkpoint.Exists, d.Checkpoint.ExistingSHA = true, cpSHA
		}
	}
	if cpSHA == "" {
		cpSHA = d.Checkpoint.SHA
	}
	switch {
	case t.pr == nil:
	case !r.in.Comment:
		r.note("input comment is false: no pull request comment")
	default:
		r.upsertComment(t.pr.Number, d, t.ack)
	}
	path := r.writeReport(d)
	r.writeSummary(d, t.ack)
	r.setOutputs(d, cpSHA, path)
	r.logVerdict(d)
	return r.exitFor(t, d)
}

// upsertComment creates or edits the sticky comment of the slice on pr. It
// edits only a comment that starts with our marker and that our identity
// wrote; a marker in anyone else's comment is ignored.
func (r *actionRun) upsertComment(pr int, d breaker.Decision, ack string) {
	body := report.Markdown(d, report.Options{
		Marker: true, MaxBytes: maxCommentBytes, Acknowledgement: ack,
		FullReport: r.gh.RunURL, Redactor: r.red,
	})
	if err := checkCommentBody(body, d.Slice); err != nil {
		r.note("comment not posted: %v", err)
		return
	}
	mine, err := r.stickyComment(pr, d.Slice)
	if err != nil {
		r.noteWrite("read the comments of #"+strconv.Itoa(pr), err)
		return
	}
	switch {
	case mine == nil:
		_, err = r.forge.CreateComment(r.ctx, pr, body)
		r.noteWrite("create the breaker comment on #"+strconv.Itoa(pr), err)
	case mine.Body == body:
		r.note("the breaker comment on #%d is up to date", pr)
	default:
		err = r.forge.EditComment(r.ctx, mine.ID, body)
		r.noteWrite("update the breaker comment on #"+strconv.Itoa(pr), err)
	}
}

// stickyComment finds our comment for slice on pr, or nil.
func (r *actionRun) stickyComment(pr int, slice string) (*breaker.Comment, error) {
	comments, err := r.forge.ListComments(r.ctx, pr)
	if err != nil {
		return nil, err
	}
	var marked []breaker.Comment
	for _, c := range comments {
		if report.HasMarker(c.Body, slice) {
			marked = append(marked, c)
		}
	}
	if len(marked) == 0 {
		return nil, nil
	}
	me, err := r.identity()
	if err != nil {
		return nil, err
	}
	for i := range marked {
		if strings.EqualFold(marked[i].Author, me) {
			return &marked[i], nil
		}
	}
	return nil, nil
}

// checkCommentBody enforces the comment's invariants: under the size limit,
// starting with the slice's marker and carrying exactly one marker.
func checkCommentBody(body, slice string) error {
	if len(body) > maxCommentBytes {
		return fmt.Errorf("the rendered comment is %d bytes, over the %d limit", len(body), maxCommentBytes)
	}
	if !report.HasMarker(body, slice) {
		return errors.New("the rendered comment does not start with its marker")
	}
	if n := strings.Count(strings.ToLower(body), "<!-- greenlight-breaker"); n != 1 {
		return fmt.Errorf("the rendered comment carries %d markers, want exactly one", n)
	}
	return nil
}

// identity is the login our comments are written as: the token's user when
// GitHub can say, else the bot-login input. Installation tokens (ghs_, as
// GITHUB_TOKEN) cannot say, so they are not asked: one API call saved.
func (r *actionRun) identity() (string, error) {
	if r.ident != nil {
		return *r.ident, nil
	}
	me := ""
	if !strings.HasPrefix(r.in.Token, "ghs_") {
		login, err := r.forge.Identity(r.ctx)
		if err != nil && !errors.Is(err, breaker.ErrForbidden) {
			return "", fmt.Errorf("ask GitHub who the token is: %w", err)
		}
		me = login
	}
	if me == "" {
		me = r.in.BotLogin
	}
	r.ident = &me
	return me, nil
}

// noteWrite notes the outcome of a write to GitHub; a forbidden write is
// the expected fate of a fork pull request's read-only token.
func (r *actionRun) noteWrite(what string, err error) {
	switch {
	case err == nil:
		r.noteDone("%s: done", what)
	case errors.Is(err, breaker.ErrForbidden):
		r.note("could not %s: the token may not (a fork pull request's read-only token?); the diagnostic is in this summary and the log", what)
	default:
		r.note("could not %s: %v", what, err)
	}
}

// writeReport writes the JSON report into the workspace and returns its
// path relative to the workspace, or "" when it could not be written.
func (r *actionRun) writeReport(d breaker.Decision) string {
	data, err := report.JSON(r.red.Decision(d))
	if err == nil {
		err = os.WriteFile(filepath.Join(r.gh.Workspace, reportFile), append(data, '\n'), 0o644)
	}
	if err != nil {
		r.note("JSON report not written: %v", err)
		return ""
	}
	return reportFile
}

// writeSummary writes the step summary: the diagnostic, then what happened
// on GitHub. It is written whatever else failed.
func (r *actionRun) writeSummary(d breaker.Decision, ack string) {
	tail := r.notesMarkdown()
	md := report.Markdown(d, report.Options{
		MaxBytes: actionenv.MaxSummary - len(tail), Acknowledgement: ack,
		FullReport: r.gh.RunURL, Redactor: r.red,
	})
	if err := r.ax.WriteSummary(md + tail); err != nil {
		r.ax.Logf("breaker: step summary not written: GITHUB_STEP_SUMMARY is unusable")
	}
}

// notesMarkdown renders the notes as a list, escaped: they quote GitHub's
// errors and names the agent chose.
func (r *actionRun) notesMarkdown() string {
	return r.notesList("\n### Breaker run\n\n", "- ", report.EscapeInline)
}

func (r *actionRun) setOutputs(d breaker.Decision, cpSHA, reportPath string) {
	outs := []actionenv.Output{
		{Name: "state", Value: string(d.State)},
		{Name: "tripped", Value: strconv.FormatBool(d.Tripped)},
		{Name: "trip-reason", Value: string(d.TripReason)},
		{Name: "slice", Value: d.Slice},
		{Name: "failed-attempts", Value: strconv.Itoa(d.TotalFailed)},
		{Name: "checkpoint-tag", Value: d.Checkpoint.Tag},
		{Name: "checkpoint-sha", Value: cpSHA},
		{Name: "report-json", Value: reportPath},
	}
	for i := range outs {
		outs[i].Value = report.SafeLine(r.red.Clean(outs[i].Value))
	}
	if err := r.ax.SetOutputs(outs); err != nil {
		r.ax.Logf("breaker: outputs not written: GITHUB_OUTPUT is unusable")
	}
}

// logVerdict prints the verdict and the run's notes inside a stop-commands
// block, and annotates the run when the breaker is OPEN.
func (r *actionRun) logVerdict(d breaker.Decision) {
	var b strings.Builder
	b.WriteString(report.Text(r.red.Decision(d)))
	b.WriteString(r.notesText())
	r.ax.Untrusted(b.String())
	if !d.Tripped {
		return
	}
	why := fmt.Sprintf("%d failed attempts in the slice (limit %d)", d.TotalFailed, d.Limits.Slice)
	if d.TripReason == breaker.TripPerTest {
		why = "test " + d.TrippedTest + fmt.Sprintf(" reached %d failed attempts", d.Limits.PerTest)
	}
	msg := "slice " + d.Slice + ": " + why + ". Stop and ask a human; the diagnostic is in the step summary and the pull request comment."
	r.ax.Annotate(actionenv.LevelError, "Circuit breaker OPEN", report.SafeLine(r.red.Clean(msg)))
}

// notesText renders the notes for the log, one safe line each.
func (r *actionRun) notesText() string {
	return r.notesList("breaker run:\n", "  - ", report.SafeLine)
}

// notesList renders the notes under a heading, each redacted and escaped.
func (r *actionRun) notesList(heading, bullet string, escape func(string) string) string {
	if len(r.notes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(heading)
	for _, n := range r.notes {
		b.WriteString(bullet + escape(r.red.Clean(n)) + "\n")
	}
	return b.String()
}
