package action

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/report"
	"github.com/greenlight-ci/breaker/internal/workspace"
)

// maxCommentBytes keeps the sticky comment under GitHub's 65,536-character
// body limit (bytes ≥ characters).
const maxCommentBytes = 65000

// ReportFile is where the JSON report is written, relative to the
// workspace; the report-json output gives this path, which later steps can
// read.
const ReportFile = "breaker-report.json"

// publish writes a decision everywhere it goes: the sticky comment on pr
// (when there is one), the JSON report, the step summary, the outputs and
// the log. ack, when set, acknowledges a command in the comment and the
// summary. A failure to publish is noted and never changes the verdict.
func publish(ctx context.Context, r *run, d breaker.Decision, refs remoteRefs, pr *forge.PullRequest, ack string) {
	switch {
	case pr == nil:
	case !r.in.Comment:
		r.note("input comment is off: no pull request comment")
	default:
		upsertComment(ctx, r, pr.Number, d, ack)
	}
	cpSHA := refs.checkpoint
	if cpSHA == "" {
		cpSHA = d.Checkpoint.SHA
	}
	path := writeReport(r, d)
	writeSummary(r, d, ack)
	setOutputs(r, d, cpSHA, path)
	logVerdict(r, d)
}

// upsertComment creates or edits the sticky comment of the slice on pr. It
// edits only a comment that starts with our marker and that our identity
// wrote (the newest, when there are several); a marker in anyone else's
// comment is ignored. A create that fails in a way that may hide a created
// comment (a 5xx, a lost answer) is followed by a fresh look for it before
// a second try, so a retry never doubles the comment. GitHub's 422 "Body is
// too long" is answered once with a body of half the size.
func upsertComment(ctx context.Context, r *run, pr int, d breaker.Decision, ack string) {
	if ack == "" && !commentDue(r, d) {
		// Quiet until it matters: a comment already there is kept up to
		// date (a closing pass says so); none is posted until then.
		mine, err := stickyComment(ctx, r, pr, d.Slice)
		if err != nil || mine == nil {
			r.note("no pull request comment yet (comment: %s): %s; the check run and this summary carry the verdict", r.in.CommentMode, quietWhy(d))
			return
		}
	}
	budget := maxCommentBytes
	for try := 0; try < 2; try++ {
		body := report.Markdown(d, report.Options{
			Marker: true, MaxBytes: budget, Acknowledgement: ack,
			FullReport: r.gh.RunURL, Redactor: r.red,
		})
		if err := checkCommentBody(body, d.Slice); err != nil {
			r.note("comment not posted: %v", err)
			return
		}
		err := putComment(ctx, r, pr, d.Slice, body)
		if err != nil && strings.Contains(strings.ToLower(err.Error()), "body is too long") && try == 0 {
			r.note("GitHub found the comment too long; trying once more at half the size")
			budget /= 2
			continue
		}
		return
	}
}

// putComment creates or edits the comment with body.
func putComment(ctx context.Context, r *run, pr int, slice, body string) error {
	what := "#" + strconv.Itoa(pr)
	mine, err := stickyComment(ctx, r, pr, slice)
	if err != nil {
		r.noteWrite("read the comments of "+what, err)
		return err
	}
	switch {
	case mine != nil && mine.Body == body:
		r.note("the breaker comment on %s is up to date", what)
		return nil
	case mine != nil:
		err = r.api.comments.EditComment(ctx, mine.ID, body)
		r.noteWrite("update the breaker comment on "+what, err)
		return err
	}
	created, err := r.api.comments.CreateComment(ctx, pr, body)
	if err == nil {
		r.noteWrite("create the breaker comment on "+what, nil)
		dedupeAfterCreate(ctx, r, pr, slice, created.ID)
		return nil
	}
	if errors.Is(err, forge.ErrForbidden) || strings.Contains(strings.ToLower(err.Error()), "body is too long") {
		r.noteWrite("create the breaker comment on "+what, err)
		return err
	}
	// GitHub may have created it before the answer was lost: look again,
	// asking GitHub rather than what the ledger query read before.
	if r.state != nil {
		r.state.complete = false
	}
	if again, lerr := stickyComment(ctx, r, pr, slice); lerr == nil && again != nil {
		r.note("the breaker comment on %s was created although GitHub's answer failed (%v); not posted twice", what, err)
		return nil
	}
	_, err = r.api.comments.CreateComment(ctx, pr, body)
	r.noteWrite("create the breaker comment on "+what+" (second try)", err)
	return err
}

// stickyComment finds our comment for slice on pr, or nil.
func stickyComment(ctx context.Context, r *run, pr int, slice string) (*forge.Comment, error) {
	var comments []forge.Comment
	if r.state != nil && r.state.complete {
		comments = r.state.comments // the ledger query read them all
	} else {
		var err error
		if comments, err = r.api.comments.ListComments(ctx, pr); err != nil {
			return nil, err
		}
	}
	ours, err := oursOn(ctx, r, comments, slice)
	if err != nil {
		return nil, err
	}
	switch len(ours) {
	case 0:
		return nil, nil
	case 1:
		return &ours[0], nil
	}
	// Several of ours (runs raced): edit the newest, delete the others of
	// ours, and say so. Every run applies the same rule, so the pull
	// request converges on one comment whatever the order.
	newest := newestOf(ours)
	r.note("%d breaker comments of ours carry the marker of slice %s; the newest is edited, the older deleted", len(ours), slice)
	deleteOthers(ctx, r, ours, newest.ID)
	return &newest, nil
}

// dedupeAfterCreate looks, after a create, for other comments of ours on
// the slice: runs that raced (a push, a dispatch and a command at once)
// each saw none and each posted one. The newest is kept and every other of
// ours deleted, by every run alike, so the pull request ends with one.
// Failing to look is only noted: the comment posted is correct either way.
func dedupeAfterCreate(ctx context.Context, r *run, pr int, slice string, created int64) {
	comments, err := r.api.comments.ListComments(ctx, pr)
	if err != nil {
		r.note("could not look for a second breaker comment after posting: %v", err)
		return
	}
	ours, err := oursOn(ctx, r, comments, slice)
	if err != nil {
		return
	}
	if len(ours) < 2 {
		return
	}
	newest := newestOf(ours)
	if newest.ID != created {
		r.note("another run posted the breaker comment of slice %s at the same time; its newer comment is kept", slice)
	}
	deleteOthers(ctx, r, ours, newest.ID)
}

// oursOn returns the comments that carry slice's marker, were written by
// the breaker's own identity and were not minimized: the only ones it may
// edit or delete. The identity is asked for only when a marker is found.
func oursOn(ctx context.Context, r *run, comments []forge.Comment, slice string) ([]forge.Comment, error) {
	var marked []forge.Comment
	for _, c := range comments {
		if report.HasMarker(c.Body, slice) && !r.hidden(c.ID) {
			marked = append(marked, c)
		}
	}
	if len(marked) == 0 {
		return nil, nil
	}
	me, err := identity(ctx, r)
	if err != nil {
		return nil, err
	}
	var ours []forge.Comment
	for _, c := range marked {
		if forge.SameLogin(c.Author, me) {
			ours = append(ours, c)
		}
	}
	return ours, nil
}

// hidden reports whether comment id was minimized, as far as the ledger
// query saw: such a comment is never edited or deleted.
func (r *run) hidden(id int64) bool {
	return r.state != nil && slices.Contains(r.state.minimized, id)
}

func newestOf(cs []forge.Comment) forge.Comment {
	newest := cs[0]
	for _, c := range cs[1:] {
		if c.ID > newest.ID {
			newest = c
		}
	}
	return newest
}

// deleteOthers deletes the comments of ours other than keep.
func deleteOthers(ctx context.Context, r *run, ours []forge.Comment, keep int64) {
	for _, c := range ours {
		if c.ID != keep {
			r.noteWrite("delete duplicate breaker comment "+strconv.FormatInt(c.ID, 10), r.api.comments.DeleteComment(ctx, c.ID))
		}
	}
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

// identity is the login our comments are written as: the bot-login input
// when set (an override), else the token's login as the ledger query's
// viewer gave it, else GET /user's answer (a token that is not an
// installation token's), else github-actions[bot], GITHUB_TOKEN's.
func identity(ctx context.Context, r *run) (string, error) {
	if r.ident != nil {
		return *r.ident, nil
	}
	me := r.in.BotLogin
	if me == "" && r.state != nil {
		me = r.state.viewer
	}
	if me == "" && !strings.HasPrefix(r.in.Token, "ghs_") {
		login, err := r.api.people.Identity(ctx)
		if err != nil && !errors.Is(err, forge.ErrForbidden) {
			return "", fmt.Errorf("ask GitHub who the token is: %w", err)
		}
		me = login
	}
	if me == "" {
		me = actionenv.DefaultBotLogin
	}
	r.ident = &me
	return me, nil
}

// writeReport writes the JSON report into the workspace, never through a
// symlink the agent committed, and returns its path relative to the
// workspace, or "" when it could not be written.
func writeReport(r *run, d breaker.Decision) string {
	data, err := report.JSONVersion(r.red.Decision(d), r.deps.Version)
	if err == nil {
		var ws *workspace.Workspace
		if ws, err = workspace.Open(r.gh.Workspace); err == nil {
			err = ws.WriteFile(ReportFile, append(data, '\n'))
			ws.Close()
		}
	}
	if err != nil {
		r.note("JSON report not written: %v", err)
		return ""
	}
	return ReportFile
}

// writeSummary writes the step summary: the diagnostic, then what happened
// on GitHub. It is written whatever else failed.
func writeSummary(r *run, d breaker.Decision, ack string) {
	tail := notesMarkdown(r)
	md := report.Markdown(d, report.Options{
		MaxBytes: actionenv.MaxSummary - len(tail), Acknowledgement: ack,
		FullReport: r.gh.RunURL, Redactor: r.red,
	})
	if err := r.ax.WriteSummary(md + tail); err != nil {
		r.ax.Logf("breaker: step summary not written: GITHUB_STEP_SUMMARY is unusable")
	}
}

func setOutputs(r *run, d breaker.Decision, cpSHA, reportPath string) {
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
func logVerdict(r *run, d breaker.Decision) {
	r.ax.Untrusted(report.Text(r.red.Decision(d)) + notesText(r))
	if d.State == breaker.StateHalfOpen {
		r.ax.Annotate(actionenv.LevelWarning, "Circuit breaker HALF_OPEN",
			report.SafeLine(r.red.Clean("slice "+d.Slice+": no progress at the last pushes; the breaker opens if it goes on. The check passes for now.")))
		return
	}
	if !d.Tripped {
		return
	}
	why := report.TextTripReason(d)
	msg := "slice " + d.Slice + ": " + why + ". Stop and ask a human; the diagnostic is in the step summary and the pull request comment."
	r.ax.Annotate(actionenv.LevelError, "Circuit breaker OPEN", report.SafeLine(r.red.Clean(msg)))
}

// writeNotesSummary writes a step summary made of the run's notes, and the
// notes to the log.
func writeNotesSummary(r *run, title string) {
	md := "## Circuit breaker: " + title + "\n" + notesMarkdown(r)
	if err := r.ax.WriteSummary(md); err != nil {
		r.ax.Logf("breaker: step summary not written: GITHUB_STEP_SUMMARY is unusable")
	}
	r.ax.Untrusted("breaker: " + title + "\n" + notesText(r))
}

// notesMarkdown renders the notes as a list, escaped: they quote GitHub's
// errors and names the agent chose.
func notesMarkdown(r *run) string {
	return notesList(r, "\n### Breaker run\n\n", "- ", report.EscapeInline)
}

// notesText renders the notes for the log, one safe line each.
func notesText(r *run) string {
	return notesList(r, "breaker run:\n", "  - ", report.SafeLine)
}

// notesList renders the notes under a heading, each redacted and escaped.
func notesList(r *run, heading, bullet string, escape func(string) string) string {
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

// commentDue says whether the comment mode asks for a comment on this
// decision when none is there yet: always; on a trip; on-failure also one
// failure short of a trip.
func commentDue(r *run, d breaker.Decision) bool {
	switch r.in.CommentMode {
	case actionenv.CommentAlways:
		return true
	case actionenv.CommentOnTrip:
		return d.State == breaker.StateOpen
	}
	return d.State == breaker.StateOpen || d.TripsLeft() == 1 || d.TripReason == breaker.TripManual
}

func quietWhy(d breaker.Decision) string {
	switch left := d.TripsLeft(); {
	case left < 0:
		return "nothing has failed"
	default:
		return fmt.Sprintf("the nearest trip is %d failures away", left)
	}
}
