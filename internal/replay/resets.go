package replay

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/ledger"
)

// maxResetAuthors bounds the permission reads of one pull request's reset
// comments: the people who asked for a reset, each read once.
const maxResetAuthors = 3

// resetRead is a maintainer's /breaker reset comment on a pull request
// that verifies as the Action verifies a recorded reset
// (evaluate.ResetRefused): the Action would have reset there.
type resetRead struct {
	CommentID int64     `json:"comment_id"`
	Author    string    `json:"author"`
	At        time.Time `json:"at"`
	Slice     string    `json:"slice,omitempty"` // the slice named; "" = the pull request's current one
	Text      string    `json:"text,omitempty"`  // the guidance
}

// resets reads pull request p's comments and keeps its /breaker reset
// comments that verify now: unedited, by a person with write access who is
// not the agent (the pull request's author and the agents' logins stand
// for the Action's pushers, which replay does not read), each comment
// once. A pull request CI never failed has nothing to reset: not read.
func (r *reader) resets(ctx context.Context, p *pullRead) error {
	if !slices.ContainsFunc(p.Heads, func(h headRead) bool { return failed(h.Conclusion) }) {
		return nil
	}
	comments, err := r.src.ListComments(ctx, p.PR.Number)
	if err != nil {
		return err
	}
	pushers := append([]string{p.PR.Author}, r.opts.Agents...)
	if len(r.opts.Agents) == 0 {
		pushers = append(pushers, KnownAgents...)
	}
	perms := map[string]string{}
	permission := func(login string) (string, error) {
		k := strings.ToLower(login)
		if perm, ok := perms[k]; ok {
			return perm, nil
		}
		if len(perms) == maxResetAuthors {
			return "unread (more than 3 people asked for resets)", nil
		}
		perm, err := r.src.Permission(ctx, login)
		if err == nil {
			perms[k] = perm
		}
		return perm, err
	}
	for _, c := range comments {
		cmd, ok := breaker.ParseCommand(c.Body)
		if !ok || cmd.Kind != breaker.CommandReset || cmd.Problem != "" {
			continue
		}
		why, err := evaluate.ResetRefused(c, p.PR.Number, c.Author, cmd.Slice, pushers, permission)
		if err != nil {
			return err
		}
		if why == "" {
			p.Resets = append(p.Resets, resetRead{CommentID: c.ID, Author: c.Author, At: c.CreatedAt, Slice: cmd.Slice, Text: cmd.Guidance})
		}
	}
	return nil
}

// resetEntry is the ledger entry the Action's reset run would have
// written for reset x at the pull request's head then (snap, the head's
// evidence and every entry before it): the head decided as reset
// (evaluate.Snapshot.DecideReset), with the record. why says why the
// Action would have refused the command instead ("" when it would not).
func resetEntry(snap evaluate.Snapshot, x resetRead) (e ledger.Entry, why string, err error) {
	slice := x.Slice
	if slice == "" {
		slice = snap.Slice()
	} else if !slices.Contains(snap.Slices(""), slice) {
		return ledger.Entry{}, "this pull request has no slice " + slice, nil
	}
	if !breaker.ValidSlice(slice) {
		return ledger.Entry{}, "no slice to reset", nil
	}
	rec := breaker.ResetRecord{Author: x.Author, Text: x.Text, At: x.At, CommentID: x.CommentID}
	d := snap.DecideReset(breaker.Refs{}, slice, rec)
	e = snap.Entry(d)
	e.Reset = &ledger.Reset{Author: x.Author, Text: x.Text, At: x.At, CommentID: x.CommentID}
	block, _ := ledger.Encode(e, nil)
	e, err = ledger.Decode(block)
	return e, "", err
}
