package action

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/evaluate"
	"github.com/greenlight-ci/breaker/internal/forge"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/report"
)

// remoteState is what one ledger query brought back: the entries of the
// breaker's own app, its tags, and the pull request's comments.
type remoteState struct {
	ledger evaluate.Ledger
	// baseSHA and baseRuns: the base commit read with the ledger, and the
	// breaker's check runs there (baseRead says it was read).
	baseSHA                   string
	baseRuns                  []CheckRunText
	baseRead                  bool
	defaultBranch, defaultSHA string
	pushers                   []string
	commits                   []string // the pull request's own commits (or the branch's history)
	forcePushed               []string // the heads its force pushes replaced (forge.LedgerState)
	tags                      map[string]string
	comments                  []forge.Comment
	complete                  bool    // comments holds every comment of the pull request
	minimized                 []int64 // comments a human hid: never edited or deleted
	viewer                    string  // the token's login, as GitHub gives it
	query                     LedgerQuery
	read                      map[int64]bool // the check runs the read held
}

// readState reads the ledger of pr (or of branch without one), the
// breaker's tags and the comments, in one query. Check runs of another app
// are ignored; one of ours that holds no readable entry was rewritten, and
// counts as tampered (fail closed): its head is named.
func readState(ctx context.Context, r *run, pr int, branch, base string) (remoteState, error) {
	q := LedgerQuery{PR: pr, Branch: branch, CheckName: r.in.CheckName, TagPrefix: r.in.TagPrefix, AppID: r.in.AppID}
	if pr > 0 && r.in.Base == "" {
		q.Base = base // its observation comes back with the ledger
	}
	var also []string
	if r.before != "" {
		also = append(also, r.before)
	}
	st, read, followed, err := readLine(ctx, r, q, also)
	if err != nil {
		return remoteState{}, err
	}
	rs := remoteState{baseSHA: q.Base, baseRuns: st.BaseRuns, baseRead: st.BaseRead, tags: st.Tags, comments: st.Comments, complete: st.CommentsComplete, minimized: st.Minimized,
		defaultBranch: st.DefaultBranch, defaultSHA: st.DefaultSHA, pushers: st.Pushers, viewer: st.Viewer, commits: st.Commits, forcePushed: st.ForcePushed,
		query: q, read: read.seen}
	noteRateLimit(r, st.RateLimit)
	rs.ledger = evaluate.Ledger{Source: "check-runs"}
	if r.in.LedgerKey != "" {
		rs.ledger.Key = []byte(r.in.LedgerKey)
	} else {
		r.note("no ledger-key: any workflow of this repository whose token may write checks writes check runs as the breaker does, " +
			"so the breaker cannot tell its ledger entries (failures, verdicts) from forged ones; resets are still verified against their comments. " +
			"The hardened deployment (README) keeps a key where the agent's code never runs")
	}
	if followed > 0 {
		r.note("read the ledger entries of %d earlier heads the pull request no longer shows (rebased or squashed away)", followed)
	}
	rs.ledger.Entries, rs.ledger.Tampered, rs.ledger.TamperedIDs, rs.ledger.From, rs.ledger.Edge = read.Entries, read.Tampered, read.TamperedIDs, read.From, read.Edge
	rs.ledger.Links = read.Links
	for _, n := range read.Notes {
		r.note("%s", n)
	}
	if err := verifyResets(ctx, r, pr, rs.ledger.Entries, st.Pushers); err != nil {
		return remoteState{}, err
	}
	return rs, nil
}

// readLine reads the ledger of q's pull request (or branch) and decodes
// its line of work. A push to a pull request first reads only the newest
// 100 commits and force pushes (one query however long the pull request:
// issue 29) and starts from the carry of the entry at its before when that
// carry stands for the line (readFromCarry); else it keeps that read when
// it is the whole line: the push's before is among those commits with an
// entry of this pull request that verifies (its run read the line, and its
// names reach every entry of it; without a key any entry of the breaker's
// app), every head the names reach was read, no entry records a reset
// (its check needs every commit's author) and none failed to decode.
// Otherwise, and always with ledger-read: every-page, it reads everything.
func readLine(ctx context.Context, r *run, q LedgerQuery, also []string) (LedgerState, Decoded, int, error) {
	var spent RateLimit // a read of the newest commits that was not the whole line
	if q.PR > 0 && r.in.LedgerRead != actionenv.LedgerReadEveryPage && (r.before != "" || r.gh.EventName == "workflow_run") {
		st, read, followed, why, err := readNewest(ctx, r, q, also)
		if err != nil || why == "" {
			return st, read, followed, err
		}
		r.ax.Logf("breaker: read every page of the ledger: %s", why)
		spent = st.RateLimit
	}
	st, err := r.api.ledger.ReadLedger(ctx, q)
	if err != nil {
		return LedgerState{}, Decoded{}, 0, err
	}
	st.RateLimit.Queries += spent.Queries
	st.RateLimit.Cost += spent.Cost
	read, followed, err := FollowPrevHeads(ctx, r.api.ledger, st.Runs, q, evaluate.Run{PR: q.PR, Branch: q.Branch, Commits: st.Commits}, also...)
	return st, read, followed, err
}

// readNewest reads the pull request's newest 100 commits and force pushes
// and decodes the line from them; why says why that may not be the whole
// line ("" when it is), and the caller then reads every page.
func readNewest(ctx context.Context, r *run, q LedgerQuery, also []string) (st LedgerState, read Decoded, followed int, why string, err error) {
	nq := q
	nq.Newest = true
	if r.wideBefore {
		nq.Before, nq.BeforeDepth = r.before, r.beforeDepth
	}
	if st, err = r.api.ledger.ReadLedger(ctx, nq); err != nil {
		return st, read, 0, "", err
	}
	hasBefore := r.before != "" && slices.ContainsFunc(st.Commits, func(c string) bool { return breaker.SameSHA(c, r.before) })
	forced := r.before != "" && slices.ContainsFunc(st.ForcePushed, func(h string) bool { return breaker.SameSHA(h, r.before) })
	if forced && !hasBefore && !r.wideBefore && !r.wholeLine {
		// A force push took before off the pull request (its timeline says
		// so): read before's history too (one more query), where the entry
		// at before and the newest entries its carry leaves out are,
		// rather than every earlier head one query each.
		nq.Before, nq.BeforeDepth = r.before, relayDistance
		wide, err := r.api.ledger.ReadLedger(ctx, nq)
		if err != nil {
			return wide, read, 0, "", err
		}
		wide.RateLimit.Queries += st.RateLimit.Queries
		wide.RateLimit.Cost += st.RateLimit.Cost
		st = wide
	}
	who := evaluate.Run{PR: q.PR, Branch: q.Branch, Commits: st.Commits}
	if !r.wholeLine { // the read holds before's history too, however many commits the push added
		if page, ok := readFromCarry(ctx, r, q, st, who); ok {
			return st, page, 0, "", nil
		}
	}
	if r.before == "" {
		// A workflow_run does not say where the branch was before.
		return st, read, 0, "the event does not say where the branch was before the push, and no carry stood for the line", nil
	}
	if !st.Older { // the pull request is no longer than a page: this is every page
		read, followed, err = FollowPrevHeads(ctx, r.api.ledger, st.Runs, q, who, also...)
		return st, read, followed, "", err
	}
	if !hasBefore {
		return st, read, 0, "the push's before, " + breaker.ShortSHA(r.before) + ", is not among the newest 100 commits", nil
	}
	read, _, err = FollowPrevHeads(ctx, newestOnly{r.api.ledger}, st.Runs, q, who, also...)
	switch {
	case errors.Is(err, errBeyondNewest):
		return st, read, 0, "its entries name heads older than the newest 100 commits", nil
	case err != nil:
		return st, read, 0, "", err
	}
	if why = wholeLine(read, who, r.before, []byte(r.in.LedgerKey)); why == "" {
		r.ax.Logf("breaker: read the ledger from the pull request's newest 100 commits and force pushes: the line of work's entries are all there")
	}
	return st, read, 0, why, nil
}

// readFromCarry takes the entries after the carry of the entry at the
// push's before out of the read of the newest commits (foldedLine); ok
// false, said in the log, when it cannot.
func readFromCarry(ctx context.Context, r *run, q LedgerQuery, st LedgerState, who evaluate.Run) (Decoded, bool) {
	if n := len(st.Commits); n == 0 || !breaker.SameSHA(st.Commits[n-1], r.head) {
		r.ax.Logf("breaker: not starting from the newest entry's carry: this run's head, %s, is not the pull request's newest commit", breaker.ShortSHA(r.head))
		return Decoded{}, false
	}
	page := Decoded{appID: q.AppID, checkName: q.CheckName}
	page.add(st.Runs)
	before := r.before
	if before == "" {
		before = newestOwnHead(page, who, r.head, []byte(r.in.LedgerKey))
	}
	for _, note := range page.addRelays(st.Runs, before, []byte(r.in.LedgerKey)) {
		r.ax.Logf("breaker: %s", note)
	}
	page.done()
	fold, why := foldedLine(page, who, before, r.head, []byte(r.in.LedgerKey))
	if why != "" {
		r.ax.Logf("breaker: not starting from the newest entry's carry: %s", why)
		return Decoded{}, false
	}
	from := fold.from
	if len(r.in.LedgerKey) == 0 && from.Carry.Reset != "" {
		// Without a key a reset is read back against its comment at every
		// run (DESIGN §5): the carry keeps who asked for it, and where.
		if why := carryResetUnverified(ctx, r, q.PR, *from, st.Pushers); why != "" {
			r.ax.Logf("breaker: not starting from the newest entry's carry: the reset it folded is not honoured (%s); the whole line is read", why)
			return Decoded{}, false
		}
	}
	r.ax.Logf("breaker: read the ledger from the pull request's newest 100 commits and force pushes: the newest entry's carry folds %d pushes, and the %d entries after it are there",
		from.Carry.Pushes, len(fold.window))
	page.Entries, page.From, page.Edge, page.Links = fold.window, from, fold.edge, fold.links
	return page, true
}

// carryResetUnverified says why the reset the carry of entry from folded
// does not verify now ("" when it does): its comment read back as a
// reset record's is (resetUnverified).
func carryResetUnverified(ctx context.Context, r *run, pr int, from ledger.Entry, pushers []string) string {
	by := from.Carry.ResetBy
	if by == nil {
		return "the carry does not say which comment asked for it"
	}
	e := ledger.Entry{Head: from.Head, PR: from.PR, Slice: from.Slice, Reset: &ledger.Reset{Author: by.Author, CommentID: by.CommentID}}
	why, err := resetUnverified(ctx, r, pr, e, pushers, map[int64]bool{})
	if err != nil {
		return "reading its comment back failed: " + err.Error()
	}
	return why
}

// wholeLine says why the entries read from the newest commits, their
// names followed, may not be the whole line of work ("" when they are):
// see readLine.
func wholeLine(read Decoded, who evaluate.Run, before string, key []byte) string {
	if len(read.Tampered) > 0 {
		return "a check run of the breaker holds no entry that reads"
	}
	verified := false
	for _, e := range read.Entries {
		if e.Reset != nil {
			return "an entry records a reset"
		}
		verified = verified || (breaker.SameSHA(e.Head, before) && who.Belongs(e) && ledger.Trusted(e, key))
	}
	if !verified {
		return "no entry of this pull request at the push's before, " + breaker.ShortSHA(before) + ", verifies"
	}
	return ""
}

// errBeyondNewest: the names of the entries read reach a head the read of
// the newest commits did not hold.
var errBeyondNewest = errors.New("a head beyond the newest commits")

// newestOnly is a LedgerStore that reads nothing more: FollowPrevHeads
// over a read of the newest commits stops at the first head it would
// fetch.
type newestOnly struct{ LedgerStore }

func (newestOnly) ReadHeads(context.Context, LedgerQuery, []string) ([]CheckRunText, error) {
	return nil, errBeyondNewest
}

func (newestOnly) ReadAncestry(context.Context, LedgerQuery, string, string) ([]CheckRunText, error) {
	return nil, errBeyondNewest
}

// verifyResets keeps a reset record of the ledger only when the comment
// it names still verifies at read time (issue 30): a comment on this pull
// request, unedited, a /breaker reset of the entry's slice, by the person
// the record names, who still has write access and is not the agent; and
// each comment once, the first record that names it. Any other record's
// reset is dropped and named: without a ledger key an agent that shares
// the breaker's identity can write an entry, never a maintainer's comment.
// It reads each named comment once (resets are rare: a call or two a run).
func verifyResets(ctx context.Context, r *run, pr int, entries []ledger.Entry, pushers []string) error {
	used := map[int64]bool{}
	for i := range entries {
		e := &entries[i]
		if e.Reset == nil || (pr > 0 && e.PR != pr) {
			continue
		}
		why, err := resetUnverified(ctx, r, pr, *e, pushers, used)
		if err != nil {
			return fmt.Errorf("verify the reset recorded at %s: %w", breaker.ShortSHA(e.Head), err)
		}
		if why != "" {
			r.note("the reset of slice %s recorded at %s is not honoured: %s", e.Slice, breaker.ShortSHA(e.Head), why)
			e.Reset = nil
			continue
		}
		used[e.Reset.CommentID] = true
	}
	return nil
}

// resetUnverified says why a reset record does not verify ("" when it
// does).
func resetUnverified(ctx context.Context, r *run, pr int, e ledger.Entry, pushers []string, used map[int64]bool) (string, error) {
	id := e.Reset.CommentID
	switch {
	case id <= 0:
		return "it names no comment", nil
	case used[id]:
		return fmt.Sprintf("comment %d already gave a reset", id), nil
	}
	c, found, err := r.api.comments.GetComment(ctx, id)
	switch {
	case err != nil:
		return "", err
	case !found:
		return fmt.Sprintf("comment %d no longer exists", id), nil
	}
	return evaluate.ResetRefused(c, pr, e.Reset.Author, e.Slice, pushers, func(login string) (string, error) { return r.api.people.Permission(ctx, login) })
}

// maxPrevRounds bounds the rounds of following earlier heads: the names
// form a skip list with express links of fan-out ledger.SkipBase, which
// reach every entry within about 2b rounds a level (ten levels reach
// ledger.MaxSeq), and a rewritten head's history takes a round of its
// own. The heads read are bounded too (10 × ledger.MaxPrevHeads): a round
// reads at least one new head, or the following ends.
const maxPrevRounds = 2*(ledger.SkipBase-1)*10 + 1 + 16

// Decoded is the ledger as read out of check runs: the entries of the
// breaker's own app, oldest first, the heads whose record was rewritten,
// and what the reader ignored or found rewritten.
type Decoded struct {
	Entries []ledger.Entry
	// From is the newest entry, whose carry the run starts from: Entries
	// are then the entries after the carry (fold.go), and Edge the head of
	// the carry's newest push.
	From *ledger.Entry
	Edge string
	// Links are, from a carry, the line's entries at its express-link
	// places below Entries (evaluate.Ledger.Links).
	Links    []ledger.Entry
	Tampered []string
	// TamperedIDs are the ids of the check runs of Tampered, in order.
	TamperedIDs []int64
	Notes       []string
	others      int
	appID       int64
	checkName   string
	seen        map[int64]bool // check run ids decoded
}

// add decodes runs into the ledger, each once (a run read twice, as a
// head and in a history, counts once).
func (d *Decoded) add(runs []CheckRunText) {
	if d.seen == nil {
		d.seen = map[int64]bool{}
	}
	fresh := runs[:0:0]
	for _, run := range runs {
		if !d.seen[run.ID] {
			d.seen[run.ID] = true
			fresh = append(fresh, run)
		}
	}
	entries, tampered, ids, notes, others := decodeRuns(fresh, d.appID, d.checkName)
	d.Entries = append(d.Entries, entries...)
	d.Tampered = append(d.Tampered, tampered...)
	d.TamperedIDs = append(d.TamperedIDs, ids...)
	d.Notes = append(d.Notes, notes...)
	d.others += others
}

// addRelays adds the entries the breaker's check runs at head relay
// (ledger.DecodeRelay) that the read does not hold already: the entries
// the newest one's carry needs from far behind head. A relay that does not
// read, or does not verify with key, adds nothing (the run then reads
// every page, as without it), and notes says so.
func (d *Decoded) addRelays(runs []CheckRunText, head string, key []byte) (notes []string) {
	if head == "" {
		return nil
	}
	for _, run := range runs {
		if !breaker.SameSHA(run.HeadSHA, head) || !ownApp(run, d.appID) {
			continue
		}
		relayed, err := ledger.DecodeRelay(run.Text, key)
		if err != nil {
			notes = append(notes, fmt.Sprintf("check run %d on %s holds a relay that does not read (%v): ignored", run.ID, breaker.ShortSHA(run.HeadSHA), err))
			continue
		}
		for _, e := range relayed {
			if !d.seen[e.CheckRunID] {
				d.seen[e.CheckRunID] = true
				d.Entries = append(d.Entries, e)
			}
		}
	}
	return notes
}

// done orders the entries and says how many runs of another app were
// ignored.
func (d *Decoded) done() {
	ledger.Sort(d.Entries)
	if d.others > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%d check runs named %s by another app were ignored: only the breaker's own app writes the ledger", d.others, d.checkName))
	}
}

// LedgerOf reads a pull request's (or a branch's) ledger as a run reads
// it: the query, every head an entry names as observed before it, and
// only the entries of that pull request (or branch) (Run.Belongs). The
// command line's ledger and stats read it so.
func LedgerOf(ctx context.Context, store LedgerStore, q LedgerQuery) (Decoded, error) {
	st, err := store.ReadLedger(ctx, q)
	if err != nil {
		return Decoded{}, err
	}
	who := evaluate.Run{PR: q.PR, Branch: q.Branch}
	read, _, err := FollowPrevHeads(ctx, store, st.Runs, q, who)
	if err != nil {
		return Decoded{}, err
	}
	mine := read.Entries[:0:0]
	for _, e := range read.Entries {
		if who.Belongs(e) {
			mine = append(mine, e)
		}
	}
	read.Entries = mine
	return read, nil
}

// FollowPrevHeads decodes the ledger out of runs and adds the entries of
// every head an entry of who's line of work (its pull request or branch,
// or one of its commits) names as observed before it that the query did
// not read (a rebase or a squash took it off the branch): every observed
// head stays in the ledger (DESIGN §6). also are heads GitHub says the
// branch was at (a push event's before), read with the rest. Each check
// run is decoded once. It returns the ledger and how many heads it
// followed.
func FollowPrevHeads(ctx context.Context, store LedgerStore, runs []CheckRunText, q LedgerQuery, who evaluate.Run, also ...string) (Decoded, int, error) {
	f := &follower{d: Decoded{appID: q.AppID, checkName: q.CheckName}, store: store, q: q, who: who, own: who.OwnCommits(),
		read: map[string]bool{}, ancestry: map[string]bool{}}
	for _, run := range runs {
		f.read[strings.ToLower(run.HeadSHA)] = true
	}
	var extra []string
	for _, h := range also {
		if k := strings.ToLower(h); !f.read[k] {
			f.read[k] = true
			extra = append(extra, h)
		}
	}
	if len(extra) > 0 {
		more, err := store.ReadHeads(ctx, q, extra)
		if err != nil {
			return Decoded{}, 0, err
		}
		runs = append(runs, more...)
	}
	f.d.add(runs)
	// The line is the pull request's (or branch's) entries, those at its
	// own commits, and every head an entry of the line names (a skip list:
	// evaluate.Snapshot.PrevHeads), whoever wrote it.
	f.line = make(map[string]bool, len(f.own))
	for h := range f.own {
		f.line[h] = true
	}
	for round := 0; ; round++ {
		missing := f.missingNames()
		if len(missing) == 0 {
			todo := f.ancestryToRead()
			if len(todo) == 0 {
				f.d.done()
				return f.d, f.followed, nil
			}
			if err := f.readAncestries(ctx, todo); err != nil {
				return Decoded{}, f.followed, err
			}
			f.scanned = 0 // entries read from a history may name heads of their own
			continue
		}
		if round == maxPrevRounds || len(f.read) > 10*ledger.MaxPrevHeads {
			return Decoded{}, f.followed, fmt.Errorf("the ledger names more earlier heads than %d rounds read; it would be incomplete", maxPrevRounds)
		}
		more, err := store.ReadHeads(ctx, q, missing)
		if err != nil {
			return Decoded{}, f.followed, err
		}
		f.followed += len(missing)
		f.d.add(more)
	}
}

// follower is FollowPrevHeads' work: the ledger decoded so far, the heads
// read, the heads of the line, and the histories read.
type follower struct {
	d        Decoded
	store    LedgerStore
	q        LedgerQuery
	who      evaluate.Run
	own      map[string]bool // the pull request's commits
	read     map[string]bool // heads whose check runs were read
	line     map[string]bool // heads of the line of work
	ancestry map[string]bool // heads whose history was read
	scanned  int             // entries whose names were followed
	followed int
}

func (f *follower) inLine(e ledger.Entry) bool {
	return f.who.Belongs(e) || f.line[strings.ToLower(e.Head)]
}

// missingNames are the heads the line's entries name that were not read,
// the line growing with every name followed (an entry read before may be
// of the line now).
func (f *follower) missingNames() []string {
	var missing []string
	for grew := true; grew; {
		grew = false
		for _, e := range f.d.Entries[f.scanned:] {
			if !f.inLine(e) {
				continue
			}
			for _, h := range e.PrevHeads {
				k := strings.ToLower(h)
				if !f.line[k] {
					f.line[k], grew = true, true
				}
				if !f.read[k] {
					f.read[k] = true
					missing = append(missing, h)
				}
			}
		}
		if grew {
			f.scanned = 0
		} else {
			f.scanned = len(f.d.Entries)
		}
	}
	return missing
}

// ancestryToRead: a head a rebase or a squash took off the branch names
// only the earlier heads that were not in its history then; the rest are
// its ancestors. They are read unless an entry written after the rewrite
// names the head (its writer had read them, and named those not in its
// own history).
func (f *follower) ancestryToRead() []ledger.Entry {
	named := map[string]bool{}
	for _, e := range f.d.Entries {
		if f.inLine(e) {
			for _, h := range e.PrevHeads {
				named[strings.ToLower(h)] = true
			}
		}
	}
	var todo []ledger.Entry
	for _, e := range f.d.Entries {
		h := strings.ToLower(e.Head)
		if e.Since != "" && !f.own[h] && !named[h] && !f.ancestry[h] && (f.who.Belongs(e) || f.read[h]) {
			f.ancestry[h] = true
			todo = append(todo, e)
		}
	}
	return todo
}

// readAncestries reads each entry's history since its Since. A history
// GitHub does not hold is no entry the breaker wrote: tampered (a verified
// reset can set it aside), never a run that cannot finish.
func (f *follower) readAncestries(ctx context.Context, todo []ledger.Entry) error {
	for _, e := range todo {
		more, err := f.store.ReadAncestry(ctx, f.q, e.Head, e.Since)
		if errors.Is(err, forge.ErrNotInHistory) {
			f.d.Notes = append(f.d.Notes, fmt.Sprintf("check run %d on %s names %s in its history, which GitHub's history of that commit does not hold: counted as tampered",
				e.CheckRunID, breaker.ShortSHA(e.Head), breaker.ShortSHA(e.Since)))
			f.d.Tampered, f.d.TamperedIDs = append(f.d.Tampered, e.Head), append(f.d.TamperedIDs, e.CheckRunID)
			continue
		}
		if err != nil {
			return err
		}
		f.followed++
		for _, run := range more {
			f.read[strings.ToLower(run.HeadSHA)] = true
		}
		f.d.add(more)
	}
	return nil
}

// lowGraphQLRuns is how many ledger reads' worth of GraphQL points left
// makes the run warn: the next runs of a busy repository would fail.
const lowGraphQLRuns = 5

// noteRateLimit logs what the ledger read cost and, when the hour's
// GraphQL points would cover only a few more runs, says so in the step
// summary before they run out.
func noteRateLimit(r *run, rl RateLimit) {
	if rl.Queries == 0 || rl.Limit == 0 {
		return
	}
	r.ax.Logf("breaker: the ledger read cost %d GraphQL points in %d %s; %d of %d left this hour (resets %s)",
		rl.Cost, rl.Queries, report.Plural(rl.Queries, "query", "queries"), rl.Remaining, rl.Limit, rl.ResetAt.UTC().Format("15:04 MST"))
	if per := max(rl.Cost, 1); rl.Remaining < lowGraphQLRuns*per {
		r.note("GraphQL points are running out: %d of %d left this hour, about %d more runs' worth; they reset at %s. "+
			"Runs after that wait for the reset or fail: fewer workflows reading the ledger, or a GitHub App token (its own, larger budget), avoid it",
			rl.Remaining, rl.Limit, rl.Remaining/per, rl.ResetAt.UTC().Format("15:04 MST"))
	}
}

// DecodeLedger reads the ledger entries out of check runs: only those of
// the breaker's own app count (the App of appID, else the GitHub Actions
// app). One of ours that holds no readable entry, or the entry of another
// commit, was rewritten: its head is returned as tampered (fail closed).
// notes say what was ignored or found rewritten.
func DecodeLedger(runs []CheckRunText, appID int64, checkName string) (entries []ledger.Entry, tampered, notes []string) {
	d := Decoded{appID: appID, checkName: checkName}
	d.add(runs)
	d.done()
	return d.Entries, d.Tampered, d.Notes
}

// decodeRuns reads the entries of the breaker's own app out of runs; it
// counts the runs of other apps it ignored. A run of an App of the
// breaker's own (appID) is read whatever its name: one whose name or
// conclusion is not what its entry says it wrote (the check name the entry
// records; failure for an OPEN verdict) was changed by someone other than
// the breaker — tampering, named, its entry still counted (issue 46).
func decodeRuns(runs []CheckRunText, appID int64, checkName string) (entries []ledger.Entry, tampered []string, ids []int64, notes []string, others int) {
	for _, run := range runs {
		if !ownApp(run, appID) {
			others++
			continue
		}
		e, err := ledger.Decode(run.Text)
		if err == nil && e.Check != "" && checkName != "" && e.Check != checkName {
			continue // another configuration of the breaker under the same App: not this ledger
		}
		if err != nil && run.Name != "" && checkName != "" && run.Name != checkName {
			continue // another check run of the App's that holds no entry
		}
		if why := changedRun(run, e, checkName); err == nil && why != "" {
			notes = append(notes, fmt.Sprintf("check run %d on %s %s: changed by someone other than the breaker (tampering); its entry still counts", run.ID, breaker.ShortSHA(run.HeadSHA), why))
			tampered, ids = append(tampered, run.HeadSHA), append(ids, run.ID)
		}
		switch {
		case err != nil:
			notes = append(notes, fmt.Sprintf("check run %d on %s holds no readable ledger entry (%v): counted as tampered", run.ID, breaker.ShortSHA(run.HeadSHA), err))
			tampered, ids = append(tampered, run.HeadSHA), append(ids, run.ID)
		case !strings.EqualFold(e.Head, run.HeadSHA):
			notes = append(notes, fmt.Sprintf("check run %d on %s holds the entry of another commit (%s): counted as tampered", run.ID, breaker.ShortSHA(run.HeadSHA), breaker.ShortSHA(e.Head)))
			tampered, ids = append(tampered, run.HeadSHA), append(ids, run.ID)
		default:
			e.CheckRunID = run.ID
			entries = append(entries, e)
		}
	}
	return entries, tampered, ids, notes, others
}

// changedRun says how a run of the breaker's differs from what its entry
// says it wrote: renamed (an entry of an App's run records the name it
// was written under), or a tripped entry's run concluded success. "" when
// it does not, or the reader did not ask for the name and conclusion.
func changedRun(run CheckRunText, e ledger.Entry, checkName string) string {
	switch {
	case run.Name != "" && e.Check != "" && run.Name != e.Check:
		return fmt.Sprintf("is named %q, not %q as its entry was written", report.SafeLine(report.Clip(run.Name, 100)), e.Check)
	case run.Name != "" && e.Check == "" && checkName != "" && run.Name != checkName:
		return fmt.Sprintf("is named %q, not %q", report.SafeLine(report.Clip(run.Name, 100)), checkName)
	case e.Verdict.State == breaker.StateOpen && (run.Conclusion == "success" || run.Conclusion == "skipped"):
		return fmt.Sprintf("concluded %s though its entry is OPEN (%s)", run.Conclusion, e.Verdict.TripReason)
	}
	return ""
}

// ownApp says whether a check run was written by the breaker's identity.
func ownApp(run CheckRunText, appID int64) bool {
	if appID != 0 {
		return run.AppID == appID
	}
	return run.AppSlug == "github-actions"
}

// refsFor reads the slice's tags out of the state.
func (rs remoteState) refsFor(r *run, slice string) remoteRefs {
	if !breaker.ValidSlice(slice) {
		return remoteRefs{}
	}
	// The query lists the tags relative to the tag prefix.
	rel := func(kind breaker.RefKind) string {
		return strings.TrimPrefix(breaker.RefName(r.policy, kind, slice), r.in.TagPrefix)
	}
	return remoteRefs{checkpoint: rs.tags[rel(breaker.RefCheckpoint)], reset: rs.tags[rel(breaker.RefReset)]}
}

// maxCheckText is GitHub's limit on a check run's summary and text.
const maxCheckText = 65535

// entryExtras is what a run adds to its ledger entry beyond what it
// observed: a verified reset, the tags it created or moved.
type entryExtras struct {
	reset  *ledger.Reset
	tags   []ledger.Tag
	onTrip *ledger.OnTrip
}

// writeCheckRun records this run's observation of the head as the
// breaker's check run there: the conclusion, a one-line title, the
// diagnostic as summary, failing tests as annotations, and the ledger
// entry in the text, every field redacted of the token. A token that may
// not write checks (a fork's pull request) leaves a note; the verdict
// stands.
func writeCheckRun(ctx context.Context, r *run, snap evaluate.Snapshot, d breaker.Decision, x entryExtras) error {
	entry := snap.Entry(d)
	entry.Reset, entry.Tags, entry.OnTrip = x.reset, x.tags, x.onTrip
	if r.in.AppID != 0 {
		entry.Check = r.in.CheckName // its runs are read by the App whatever their name
	}
	if entry.FoldCarry != nil && snap.PR() > 0 {
		entry.FoldCarry.OnTrip = x.onTrip != nil || (x.reset == nil && recordedOnTrip(r, snap.PR()) != nil)
	}
	entry = redactEntry(r, entry)
	var key []byte
	if r.in.LedgerKey != "" {
		key = []byte(r.in.LedgerKey)
	}
	block, entry := ledger.Encode(entry, key)
	text := "The ledger entry of this head: what CI observed here, read back by every later run of the breaker.\n\n" + block
	if entry.Cut > 0 {
		text = fmt.Sprintf("%d tests were left out of this entry to fit the check run; the failing ones are kept.\n\n", entry.Cut) + text
	}
	// A reset hands the agent's next invocation what was tried.
	if entry.Reset != nil && entry.Reset.Prior != "" {
		text = "What was tried before this reset, for the agent's next attempt (the gate's prior-attempts output):\n\n" +
			report.CodeBlock(entry.Reset.Prior, "xml") + "\n" + text
	}
	// Words for the agent, where agents that iterate on CI read: the failed
	// check's text and the log (a dry run blocks nothing, so it says none).
	if words := report.AgentWords(d); words != "" && !r.in.DryRun {
		words = r.red.Redact(words)
		text = report.CodeBlock(words, "text") + "\n" + text
		r.ax.Untrusted(words)
	}
	// An OPEN circuit is a failure whatever the head's results (none, or
	// unreadable: neutral is for a CLOSED slice whose tests did not run),
	// and so is a head another pull request or branch found OPEN: a
	// required check reads the newest run on the head, which must carry
	// the worst verdict of every one judged there.
	title := checkTitle(d)
	conclusion := "success"
	elsewhere := openElsewhere(r, snap)
	switch {
	case d.State == breaker.StateOpen:
		conclusion = "failure"
	case elsewhere != "":
		conclusion = "failure"
		title = report.SafeLine(report.Clip("OPEN at this head for "+elsewhere+"; "+title, 200))
		r.note("this head is OPEN for %s, so its check stays failed whatever this run found", elsewhere)
	case d.HeadInfra != "" && (d.HeadInfraKind == breaker.InfraCancelled || d.HeadInfraKind == ""):
		// Only a run cancelled outside the agent's code is neutral; missing
		// results and a failed build fail the check (fail closed).
		conclusion = "neutral"
	case d.HeadInfra != "":
		conclusion = "failure"
	}
	if r.in.DryRun {
		// The one place an open verdict may be neutral: the user chose a
		// dry run, which records and never blocks.
		verb := "dry run: "
		if conclusion == "failure" {
			verb = "dry run: would be "
		}
		conclusion, title = "neutral", report.SafeLine(report.Clip(verb+title, 200))
	}
	if rb := ledger.EncodeRelay(relayed(r, snap, entry), key); rb != "" {
		if len(text)+len(rb) < maxCheckText-1024 {
			text += "\n" + rb
		} else {
			r.note("the entries the next run needs from far behind this head did not fit this check run's text: that run reads every page of the ledger")
		}
	}
	run := redactCheckRun(r, CheckRun{
		Name: r.in.CheckName, HeadSHA: snap.Head(), Conclusion: conclusion, Title: title,
		Summary: report.Markdown(d, report.Options{MaxBytes: maxCheckText - 1000, FullReport: r.gh.RunURL, Redactor: r.red}),
		Text:    text, Annotations: annotations(snap, r),
	})
	_, err := r.api.ledger.CreateCheckRun(ctx, run)
	switch {
	case err == nil:
		r.noteDone("recorded this head's ledger entry in check run %s", r.in.CheckName)
	case errors.Is(err, forge.ErrForbidden):
		r.note("could not write check run %s: the token may not (needs `checks: write`; a fork pull request's token is read-only), so this push is not in the ledger; the verdict is in this summary and the log", r.in.CheckName)
	default:
		r.note("could not write check run %s, so this push is not in the ledger: %v", r.in.CheckName, err)
	}
	return err
}

// relayDistance is how far behind a head (in commits of its branch) an
// entry the next run's window needs is relayed: the next run reads the
// pull request's newest 100 commits, so a push of up to 100-relayDistance
// commits still finds the ones nearer.
const relayDistance = 50

// relayed are the entries this run's check run relays (Relay), from what
// it read of the line.
func relayed(r *run, snap evaluate.Snapshot, e ledger.Entry) []ledger.Entry {
	if r.state == nil {
		return nil
	}
	l := r.state.ledger
	read := l.Entries
	if l.From != nil {
		read = append(slices.Clone(read), *l.From)
	}
	read = append(slices.Clone(read), l.Links...)
	listed := map[string]bool{}
	for _, h := range r.state.forcePushed {
		listed[strings.ToLower(h)] = true
	}
	return Relay(e, read, snap.Commits(), snap.Belongs, listed)
}

// Relay is what the check run of entry e relays (ledger.EncodeRelay): the
// entries the next run, starting from e's carry, needs (the newest
// entries below e: its window and the carry's newest push; and the
// line's entries at its express-link places, linkPlaces, which the runs
// after it name) whose heads lie relayDistance commits or more behind e's
// head on its branch (commits, base..head), or off it and not a head a
// force push replaced (the next read lists those: forcePushed; a rebase
// takes the heads before it away unlisted), of those read (this pull
// request's: belongs). None when e keeps no carry, or the next run finds
// them all in its read.
func Relay(e ledger.Entry, read []ledger.Entry, commits []breaker.Commit, belongs func(ledger.Entry) bool, forcePushed map[string]bool) []ledger.Entry {
	if e.Carry == nil {
		return nil
	}
	far := map[string]bool{} // on the branch, relayDistance commits or more behind e's head
	near := map[string]bool{}
	for i, c := range commits {
		if i <= len(commits)-1-relayDistance {
			far[strings.ToLower(c.SHA)] = true
		} else {
			near[strings.ToLower(c.SHA)] = true
		}
	}
	lo := e.Seq - e.Carry.NewestEntries()
	links := linkPlaces(e.Seq)
	var keep []ledger.Entry
	seen := map[int64]bool{}
	n := 0
	for _, le := range read {
		window := le.Seq >= lo && le.Seq < e.Seq
		if le.Kind == ledger.KindBase || le.CheckRunID == 0 || seen[le.CheckRunID] || !belongs(le) || !window && (le.Seq >= e.Seq || !slices.Contains(links, le.Seq)) {
			continue
		}
		seen[le.CheckRunID] = true
		// Far behind, or off the branch (a force push took it away: the
		// next read's force pushes name only the head each one replaced,
		// not that head's history).
		if h := strings.ToLower(le.Head); far[h] || (!near[h] && !forcePushed[h]) {
			keep = append(keep, le)
		}
		if window {
			n++
		}
	}
	if len(keep) == 0 || n > breaker.Window {
		return nil // the next run finds them all in its read, or they are more than a relay holds
	}
	ledger.Sort(keep)
	return keep
}

// openElsewhere names the pull requests or branches (other than this
// run's) whose newest ledger entry at this head is OPEN; "" when none.
func openElsewhere(r *run, snap evaluate.Snapshot) string {
	if r.state == nil {
		return ""
	}
	newest := map[string]ledger.Entry{}
	for _, e := range r.state.ledger.Entries {
		if !strings.EqualFold(e.Head, snap.Head()) || snap.Belongs(e) {
			continue
		}
		key := "branch " + e.Branch
		if e.PR > 0 {
			key = "#" + strconv.Itoa(e.PR)
		}
		if cur, ok := newest[key]; !ok || e.ObservedAt.After(cur.ObservedAt) || (e.ObservedAt.Equal(cur.ObservedAt) && e.RunID > cur.RunID) {
			newest[key] = e
		}
	}
	var open []string
	for key, e := range newest {
		if e.Verdict.State == breaker.StateOpen {
			open = append(open, key)
		}
	}
	sort.Strings(open)
	return strings.Join(open, ", ")
}

// redactEntry removes the token from every text of a ledger entry before
// it is signed: a test name, the infra reason, the branch, a reset's words.
func redactEntry(r *run, e ledger.Entry) ledger.Entry {
	tests := make([]ledger.Test, len(e.Tests))
	for i, t := range e.Tests {
		t.Suite, t.Name = r.red.Redact(t.Suite), r.red.Redact(t.Name)
		tests[i] = t
	}
	e.Tests = tests
	if e.Infra != nil {
		infra := r.red.Redact(*e.Infra)
		e.Infra = &infra
	}
	e.Branch = r.red.Redact(e.Branch)
	if len(e.Errors) > 0 {
		errs := make(map[string]string, len(e.Errors))
		for k, v := range e.Errors {
			errs[r.red.Redact(k)] = r.red.Redact(v)
		}
		e.Errors = errs
	}
	if e.Reset != nil {
		rs := *e.Reset
		rs.Author, rs.Text, rs.Prior = r.red.Redact(rs.Author), r.red.Redact(rs.Text), r.red.Redact(rs.Prior)
		e.Reset = &rs
	}
	return e
}

// redactCheckRun removes the token from every field of a check run: the
// title, summary, text and every annotation (check runs are readable by
// anyone who can read the repository, and GitHub masks nothing there).
func redactCheckRun(r *run, c CheckRun) CheckRun {
	c.Title, c.Summary, c.Text = r.red.Redact(c.Title), r.red.Redact(c.Summary), r.red.Redact(c.Text)
	anns := make([]Annotation, len(c.Annotations))
	for i, a := range c.Annotations {
		a.Path, a.Title, a.Message = r.red.Redact(a.Path), r.red.Redact(a.Title), r.red.Redact(a.Message)
		anns[i] = a
	}
	c.Annotations = anns
	return c
}

// writeFailedCheck writes a failed check run on head when the breaker
// cannot judge it at all (title says why, err the detail), so a required
// check fails instead of never appearing. Its ledger entry is an infra
// one: not an observation of the tests, never counted.
func writeFailedCheck(ctx context.Context, r *run, head, title string, err error) {
	writeRefusal(ctx, r, head, title, err, true)
}

// writeRefusal writes the failed check run of a head the breaker will not
// judge. withEntry says whether the ledger records it (an infra entry,
// never counted); a pull request from the default branch is refused
// without one: the default branch's commits are every pull request's base,
// and only a push to it records what CI saw there.
func writeRefusal(ctx context.Context, r *run, head, title string, err error, withEntry bool) {
	why := r.red.Redact(err.Error())
	text := "This head was not judged, and no ledger entry is written for it: only a push to the default branch records what CI saw on its commits.\n"
	if withEntry {
		infra := "the breaker could not judge this head: " + title
		entry := ledger.Entry{Schema: ledger.Schema, Head: head, ObservedAt: r.deps.Now().UTC(), RunID: r.gh.RunID,
			Event: r.gh.EventName, Infra: &infra, Tests: []ledger.Test{}}
		if r.in.AppID != 0 {
			entry.Check = r.in.CheckName
		}
		var key []byte
		if r.in.LedgerKey != "" {
			key = []byte(r.in.LedgerKey)
		}
		block, _ := ledger.Encode(entry, key)
		text = "This head was not judged; the entry below records that, and is never counted.\n\n" + block
	}
	run := redactCheckRun(r, CheckRun{
		Name: r.in.CheckName, HeadSHA: head, Conclusion: "failure",
		Title:   report.SafeLine(report.Clip("cannot judge: "+title, 200)),
		Summary: "## Circuit breaker: " + report.SafeLine(title) + "\n\n" + report.CodeBlock(why, "text") + "\n",
		Text:    text,
	})
	_, cerr := r.api.ledger.CreateCheckRun(ctx, run)
	r.noteWrite("write the failed check run "+r.in.CheckName+" on "+breaker.ShortSHA(head), cerr)
}

// checkTitle is the check run's one-line title: the state and how far the
// slice is from each trip, the closest first, in plain words.
func checkTitle(d breaker.Decision) string {
	var t string
	switch {
	case d.Tripped:
		t = fmt.Sprintf("OPEN: %s; slice %s", report.TripWords(d), d.Slice)
	case report.Distance(d) != "":
		t = fmt.Sprintf("%s: %s; slice %s", d.State, report.Distance(d), d.Slice)
	default:
		t = fmt.Sprintf("%s: nothing failed; slice %s", d.State, d.Slice)
	}
	if d.HeadInfra != "" {
		t = "tests did not run: " + d.HeadInfra
	}
	return report.SafeLine(report.Clip(t, 200))
}

// annotations mark the failing tests of this run at their file and line.
func annotations(snap evaluate.Snapshot, r *run) []Annotation {
	var out []Annotation
	paths := newAnnotationPaths(r.gh.Workspace)
	defer paths.Close()
	for _, t := range snap.Failing() {
		if t.File == "" || t.Line <= 0 || len(out) == 50 {
			continue
		}
		file, ok := paths.path(t.File, t.Suite)
		if !ok {
			continue
		}
		msg := report.SafeLine(r.red.Clean(report.Clip(t.Message, 1000)))
		if msg == "" {
			msg = "failed"
		}
		out = append(out, Annotation{Path: file, Line: t.Line, Title: report.SafeLine(report.Clip(t.FullName(), 200)), Message: msg})
	}
	return out
}
