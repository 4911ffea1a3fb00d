package evaluate

import (
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/ledger"
	"github.com/greenlight-ci/breaker/internal/testresult"
)

// Ledger is what the caller read of the ledger for this pull request or
// branch: the entries, oldest first, and how to trust them.
type Ledger struct {
	Entries []ledger.Entry
	Key     []byte // the ledger-key secret; nil when none was given
	Source  string // "check-runs", "file"; "" = no ledger was read
	// Tampered are heads whose record the reader found rewritten (a check
	// run of the breaker's own app with no readable entry): they trip
	// ledger_tampered with or without a key.
	Tampered []string
	// TamperedIDs are the check run ids of Tampered, when the reader knew
	// them (0 otherwise): a verified reset sets aside those before it.
	TamperedIDs []int64
	// From, when set, is the line's newest entry, verified, whose carry the
	// run starts from: Entries are then the entries after the carry, From
	// among them (fold.go); Edge is the head of the carry's newest push
	// (the line's entry at From.Seq-From.Carry.After), "" when it folded
	// none.
	From *ledger.Entry
	Edge string
	// Links, from a carry, are the line's entries below Entries at the
	// places its skip list's express links name (action.linkPlaces): the
	// entry this run writes names them (PrevHeads), and its relay carries
	// them on. They are never counted: the carry holds their pushes.
	Links []ledger.Entry
}

// Run describes this run, for the entry it writes.
type Run struct {
	ObservedAt time.Time
	// RunID and Attempt are the workflow run that observed the head and
	// its attempt (the tested run's, in the hardened mode).
	RunID   int64
	Attempt int
	Event   string
	PR      int
	Branch  string // the branch judged; with PR, whose ledger this is
	// Commits are the pull request's own commits (base..head) as GitHub
	// lists them, when the caller read them: with the local history's,
	// the commits an entry of any pull request or branch counts on.
	Commits []string
	// Before is the head GitHub says the branch was at before this push
	// (a push event's before), "" when the event does not say: named in
	// the entry when no entry of it was read (Snapshot.PrevHeads).
	Before string
}

// headErrors are CI's error lines kept in the entry (ledger.Entry.Errors):
// of the tests an OPEN decision's diagnostic names, at most MaxErrors; of
// a push that failed without tripping, its lead test's alone (what a
// later /breaker debug or warning shows without the run's output); nil
// when none has a message.
func headErrors(d breaker.Decision, tests []testresult.Test, full []string) map[string]string {
	want := map[string]bool{}
	if d.State == breaker.StateOpen {
		for _, dg := range d.Diagnostics {
			if len(want) < ledger.MaxErrors && dg.Test != "" {
				want[dg.Test] = true
			}
		}
	}
	if lead := d.LeadTest(); lead != "" && len(want) < ledger.MaxErrors {
		want[lead] = true
	}
	if len(want) == 0 {
		return nil
	}
	var out map[string]string
	for i, t := range tests {
		msg := strings.TrimSpace(t.Message)
		if msg == "" {
			msg = strings.TrimSpace(t.Output)
		}
		if !t.Status.Failed() || !want[full[i]] || msg == "" {
			continue
		}
		line, _, _ := strings.Cut(msg, "\n")
		if out == nil {
			out = map[string]string{}
		}
		out[full[i]] = clipBytes(strings.TrimSpace(line), ledger.MaxErrorBytes)
	}
	return out
}

// clipBytes cuts s to at most n bytes, at a rune's start.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// reRun is an attempt as an entry records it: 0 (absent) for the first.
func reRun(attempt int) int {
	if attempt > 1 {
		return attempt
	}
	return 0
}

// OwnCommits is Commits as a set of lower-case ids.
func (run Run) OwnCommits() map[string]bool {
	own := make(map[string]bool, len(run.Commits))
	for _, c := range run.Commits {
		own[strings.ToLower(c)] = true
	}
	return own
}

// Belongs reports whether entry e is an observation of the pull request
// (or branch) run judges (DESIGN §2: observations are kept per pull
// request): one written for the same pull request, or for no pull request
// on the same branch (pushes before the pull request was opened). Entries
// without a branch predate the field and are kept. Another pull request's
// entries, even on a shared commit, are not this one's pushes, resets or
// checkpoints.
//
// A run that names neither (the command line over a ledger file the user
// chose) takes every entry.
func (run Run) Belongs(e ledger.Entry) bool {
	switch {
	case run.PR == 0 && run.Branch == "":
		return true
	case run.PR > 0 && e.PR > 0:
		return e.PR == run.PR
	case e.PR > 0: // a branch run reading a pull request's entries
		return e.Branch != "" && e.Branch == run.Branch
	}
	return e.Branch == "" || run.Branch == "" || e.Branch == run.Branch
}

// runPush is this run's observation of the head as a push: every test of
// the results (so a test missing from it is absent), and the status of the
// test each <prefix>Test name designates.
// fullNames is the full name of each of rep's tests, aligned with
// rep.Tests: computed once a run, where three folds over 20,000 tests each
// built them again.
func fullNames(rep testresult.Report) []string {
	out := make([]string, len(rep.Tests))
	for i, t := range rep.Tests {
		out[i] = t.FullName()
	}
	return out
}

func runPush(head string, run Run, rep testresult.Report, full, names []string) breaker.Push {
	p := breaker.Push{Head: head, ObservedAt: run.ObservedAt, RunID: run.RunID, RunAttempt: max(run.Attempt, 1), Event: run.Event,
		Source: breaker.PushFromRun, Infra: rep.Infra, InfraKind: rep.InfraKind, Complete: true,
		Tests: make(map[string]breaker.PushTest, len(rep.Tests)), Declared: map[string]breaker.PushTest{}}
	for i, t := range rep.Tests {
		p.Tests[full[i]] = pushTest(t.Status, t.Message, t.Output)
	}
	if rep.Infra == "" {
		declare(p.Declared, rep.Tests, names)
	}
	c := rep.Counts()
	p.Counts = breaker.PushCounts{Total: c.Total, Passed: c.Passed, Failed: c.Failed + c.Errored}
	return p
}

func pushTest(s breaker.TestStatus, message, output string) breaker.PushTest {
	pt := breaker.PushTest{Status: s}
	if s.Failed() {
		pt.Message = message
		if pt.Message == "" {
			pt.Message = output
		}
		pt.Fingerprint = ledger.Fingerprint(pt.Message, "")
	}
	return pt
}

// declare resolves each <prefix>Test name against tests as the run's
// observation does: one match is observed, none is absent, several are
// ambiguous and left out.
func declare(into map[string]breaker.PushTest, tests []testresult.Test, names []string) {
	for _, n := range names {
		switch m := testresult.Match(tests, n); len(m) {
		case 0:
			into[n] = breaker.PushTest{Status: breaker.StatusAbsent}
		case 1:
			into[n] = pushTest(m[0].Status, m[0].Message, m[0].Output)
		}
	}
}

// entryPush turns a ledger entry into a push.
func entryPush(e ledger.Entry, names []string) breaker.Push {
	p := breaker.Push{Head: e.Head, ObservedAt: e.ObservedAt, RunID: e.RunID, RunAttempt: max(e.RunAttempt, 1), Event: e.Event,
		Source: breaker.PushFromLedger, Slice: e.Slice,
		Verdict: &breaker.Verdict{State: e.Verdict.State, TripReason: e.Verdict.TripReason, TotalFailed: e.Verdict.TotalFailed},
		Counts:  breaker.PushCounts{Total: e.Counts.Total, Passed: e.Counts.Passed, Failed: e.Counts.Failed + e.Counts.Errored},
		Tests:   make(map[string]breaker.PushTest, len(e.Tests)), Declared: map[string]breaker.PushTest{}}
	if e.Reset != nil {
		p.Reset = &breaker.ResetRecord{Author: e.Reset.Author, Text: e.Reset.Text, At: e.Reset.At, CommentID: e.Reset.CommentID}
	}
	p.KnownBefore = e.KnownBefore()
	if e.Infra != nil {
		p.Infra, p.InfraKind = *e.Infra, e.InfraKind
		if p.Infra == "" {
			p.Infra = "the tests did not run"
		}
	}
	tests := make([]testresult.Test, 0, len(e.Tests))
	for _, t := range e.Tests {
		p.Tests[t.FullName()] = breaker.PushTest{Status: t.Status, Fingerprint: t.Fingerprint, Kept: e.Errors[t.FullName()]}
		tests = append(tests, testresult.Test{Suite: t.Suite, Name: t.Name, Status: t.Status})
	}
	if p.Infra == "" {
		for _, n := range names {
			// An entry holds failing tests and the ones asked about, not
			// every passing test: a name it does not carry is unknown.
			if m := testresult.Match(tests, n); len(m) == 1 {
				p.Declared[n] = breaker.PushTest{Status: m[0].Status}
			}
		}
	}
	return p
}

// lineHeads are the heads whose entries are observations of this line of
// work whoever wrote them (issue 29): the run's own commits (base..head,
// never a commit already on the base, so a merged line reaches no pull
// request after it) and every head an entry at one of them names as
// observed before it. A new pull request from the same branch, or the
// same commits pushed to a new branch, inherits their failures and OPEN
// verdicts; resets, checkpoints and tags stay with the pull request that
// recorded them (Run.Belongs).
func lineHeads(entries []ledger.Entry, own map[string]bool) map[string]bool {
	line := make(map[string]bool, len(own))
	for h := range own {
		line[h] = true
	}
	// An entry names a skip list of the line's earlier heads (ledger.Entry
	// Seq), each of which names its own stretch: the line is their closure.
	for grew := true; grew; {
		grew = false
		for _, e := range entries {
			if !line[strings.ToLower(e.Head)] {
				continue
			}
			for _, h := range e.PrevHeads {
				if k := strings.ToLower(h); !line[k] {
					line[k], grew = true, true
				}
			}
		}
	}
	return line
}

// inLine says whether entry e is an observation of run's line of work:
// its own pull request's (or branch's), or one at a head of the line.
func inLine(e ledger.Entry, run Run, line map[string]bool) bool {
	return run.Belongs(e) || line[strings.ToLower(e.Head)]
}

// ledgerPushes verifies the entries and turns those of run's line of work
// into pushes; every entry is verified, another's included. An entry
// another pull request or branch wrote brings its failures and an OPEN
// verdict, never its reset or a CLOSED verdict.
func ledgerPushes(l Ledger, names []string, run Run, line map[string]bool) ([]breaker.Push, breaker.LedgerInfo) {
	info := breaker.LedgerInfo{Entries: len(l.Entries), Signed: l.Key != nil, Source: l.Source}
	if info.Source == "" {
		info.Source = "none"
	}
	// A verified reset of this pull request sets aside every record that
	// did not verify before it (by check run id: GitHub's grow with time):
	// the maintainer saw the tampering reported and reset anyway. Named,
	// never a permanent lock on a person's pull request.
	var resetID int64
	for _, e := range l.Entries {
		if e.Reset != nil && run.Belongs(e) && (l.Key == nil || ledger.Verify(e, l.Key)) {
			resetID = max(resetID, e.CheckRunID)
		}
	}
	for i, h := range l.Tampered {
		if i < len(l.TamperedIDs) && l.TamperedIDs[i] > 0 && l.TamperedIDs[i] < resetID {
			info.SetAside = append(info.SetAside, h)
			continue
		}
		info.Tampered = append(info.Tampered, h)
	}
	entries := append([]ledger.Entry(nil), l.Entries...)
	ledger.Sort(entries)
	var out []breaker.Push
	var kept []ledger.Entry
	for _, e := range entries {
		if l.Key != nil && !ledger.Verify(e, l.Key) {
			if e.CheckRunID > 0 && e.CheckRunID < resetID {
				info.SetAside = append(info.SetAside, e.Head)
				continue
			}
			info.Tampered = append(info.Tampered, e.Head)
		}
		switch {
		case e.Kind == ledger.KindBase:
			continue // the default branch's observation: no push of any line
		case run.Belongs(e):
		case line[strings.ToLower(e.Head)]:
			e.Reset = nil
			if e.Verdict.State != breaker.StateOpen {
				e.Verdict = ledger.Verdict{} // no verdict: it closes nothing here
			}
		default:
			continue
		}
		p := entryPush(e, names)
		if e.Verdict.State == "" {
			p.Verdict = nil
		}
		out = append(out, p)
		kept = append(kept, e)
	}
	passesBeforeFailing(out, kept)
	info.Verified = l.Key != nil && len(info.Tampered) == 0
	return out, info
}

// passesBeforeFailing gives each push the passes of the tests that fail
// somewhere in the line: an entry keeps a test from its first failure on,
// and before that the test passed wherever the line already knew it
// (ledger.Known). Only the tests that ever failed are asked about, so the
// cost is theirs, not the suite's.
func passesBeforeFailing(out []breaker.Push, line []ledger.Entry) {
	failed := map[string]bool{}
	for _, p := range out {
		for name, pt := range p.Tests {
			if pt.Status.Failed() {
				failed[name] = true
			}
		}
	}
	if len(failed) == 0 {
		return
	}
	known := knownSets(line)
	for name := range failed {
		from := -1
		for j := range line {
			if known[j].has(name) {
				from = j
				break
			}
		}
		if from < 0 {
			continue
		}
		for j := from; j < len(out); j++ {
			if _, ok := out[j].Tests[name]; !ok && out[j].Infra == "" {
				out[j].Tests[name] = breaker.PushTest{Status: breaker.StatusPass}
			}
		}
	}
}

// knownSet is what one entry says its run had: a filter, or the names new
// at it (sorted).
type knownSet struct {
	filter *ledger.Filter
	added  []string
}

func (k knownSet) has(name string) bool {
	if k.filter != nil && k.filter.Has(name) {
		return true
	}
	i := sort.SearchStrings(k.added, name)
	return i < len(k.added) && k.added[i] == name
}

// knownSets decodes each entry's Known once; an unreadable filter knows
// nothing (Decode refused it already; a test's entry cannot hold one).
func knownSets(line []ledger.Entry) []knownSet {
	out := make([]knownSet, len(line))
	for i, e := range line {
		if e.Known == nil {
			continue
		}
		out[i].added = e.Known.Added
		if e.Known.Filter != "" {
			if f, err := ledger.ParseFilter(e.Known.Filter); err == nil {
				out[i].filter = &f
			}
		}
	}
	return out
}

// newTests are the names of this run's tests that no entry of the line
// knew (sorted), and whether the entry should carry a new filter of every
// name instead: there is none yet, or too many names are new.
func newTests(line []ledger.Entry, names []string) (added []string, refilter bool) {
	known := knownSets(line)
	anyFilter := false
	for _, k := range known {
		anyFilter = anyFilter || k.filter != nil
	}
	if !anyFilter {
		return nil, true
	}
	size := 0
	for _, n := range names {
		found := false
		for _, k := range known {
			if k.has(n) {
				found = true
				break
			}
		}
		if found {
			continue
		}
		added = append(added, n)
		size += len(n)
		if len(added) > ledger.MaxAdded || size > ledger.MaxAddedBytes {
			return nil, true
		}
	}
	sort.Strings(added)
	return added, false
}

// Entry is the ledger entry this run writes for its head: the counts, every
// test failing or erroring there, every test that failed at an earlier
// observed push of the line, with its status now, and which tests ran
// (Known). An infra head records why the tests did not run.
func (s Snapshot) Entry(d breaker.Decision) ledger.Entry {
	e := ledger.Entry{Schema: ledger.Schema, Head: s.run.Head, ObservedAt: s.run.ObservedAt.UTC(),
		RunID: s.meta.RunID, Event: s.meta.Event, PR: s.meta.PR, Slice: d.Slice, Tests: []ledger.Test{},
		RunAttempt: reRun(s.meta.Attempt),
		Verdict:    ledger.Verdict{State: d.State, TripReason: d.TripReason, TotalFailed: d.TotalFailed},
		Branch:     s.meta.Branch, Checkpoint: d.Checkpoint.SHA}
	e.PrevHeads, e.Since, e.Seq = s.PrevHeads()
	if s.run.Infra != "" {
		return s.infraEntry(e, d)
	}
	c := s.report.Counts()
	e.Counts = ledger.Counts{Total: c.Total, Passed: c.Passed, Failed: c.Failed, Errored: c.Errored, Skipped: c.Skipped}
	var line []ledger.Entry
	for _, le := range s.ledger.Entries {
		if inLine(le, s.meta, s.line) {
			line = append(line, le)
		}
	}
	ledger.Sort(line)
	// A read from a carry asks about the tests the carry holds as well:
	// each failed at a push it folded.
	rows := s.carryRows()
	carried := len(rows)
	for _, le := range line {
		rows = append(rows, le.Tests...)
	}
	for i, lt := range rows {
		if i < carried || lt.Status.Failed() {
			if e.History == nil {
				e.History = map[string]bool{}
			}
			e.History[lt.FullName()] = true // its status now is kept, its pass first
		}
	}
	// The tests the commits declare attempts on, passing or not: a later
	// run that reads the whole line judges an attempt by their status here
	// as this run does (breaker.view).
	declared := make(map[string]bool, len(s.input.Observation.Tests))
	for _, ot := range s.input.Observation.Tests {
		declared[ot.Name] = true
	}
	seen := map[string]bool{}
	names := make([]string, 0, len(s.report.Tests))
	all := s.fullNames()
	for i, t := range s.report.Tests {
		full := all[i]
		if seen[full] {
			continue
		}
		seen[full] = true
		names = append(names, full) // reportNames
		if !t.Status.Failed() && !e.History[full] && !declared[full] {
			continue
		}
		lt := ledger.Test{Suite: t.Suite, Name: t.Name, Status: t.Status}
		if t.Status.Failed() {
			lt.Fingerprint = s.run.Tests[full].Fingerprint
		}
		e.Tests = append(e.Tests, lt)
	}
	e.Errors = headErrors(d, s.report.Tests, all)
	for _, lt := range rows {
		if full := lt.FullName(); e.History[full] && !seen[full] {
			seen[full] = true
			e.Tests = append(e.Tests, ledger.Test{Suite: lt.Suite, Name: lt.Name, Status: breaker.StatusAbsent})
		}
	}
	// What the next run starts from (docs/ledger.md, the folded state),
	// signed or not: an unsigned entry is as trustworthy as the identity
	// that wrote it, its carry too.
	if e.Names = s.names; e.Names == "" {
		e.Names = ledger.Digest(names)
	}
	e.FoldCarry, e.KnownBeforeNames = s.foldHint(d, e.History, line)
	if s.fold != nil {
		return e // the names are the newest push's (Names): none is new, Known says nothing more
	}
	added, refilter := newTests(line, names)
	if refilter {
		e.KnownNames = names
	} else {
		e.Known = &ledger.Known{Added: added}
	}
	return e
}

// infraEntry is Entry for a push whose tests did not run: the reason, and
// the carry naming its tests by the entry's rows (listed, absent: nothing
// ran here).
func (s Snapshot) infraEntry(e ledger.Entry, d breaker.Decision) ledger.Entry {
	infra := s.run.Infra
	e.Infra, e.InfraKind = &infra, s.run.InfraKind
	e.FoldCarry, _ = s.foldHint(d, nil, nil)
	if e.FoldCarry == nil {
		return e
	}
	rows := s.carryRows()
	for _, le := range s.ledger.Entries {
		rows = append(rows, le.Tests...)
	}
	seen := map[string]bool{}
	for _, t := range rows {
		if full := t.FullName(); d.Carry.Tests[full] != nil && !seen[full] {
			seen[full] = true
			e.Tests = append(e.Tests, ledger.Test{Suite: t.Suite, Name: t.Name, Status: breaker.StatusAbsent})
		}
	}
	return e
}

// reportNames are the full names of a run's tests, each once, in order.
func (s Snapshot) reportNames() []string {
	all := s.fullNames()
	seen := make(map[string]bool, len(all))
	names := make([]string, 0, len(all))
	for _, full := range all {
		if !seen[full] {
			seen[full] = true
			names = append(names, full)
		}
	}
	return names
}

// fullNames are the full names of the run's tests, aligned with its
// report (computed again for a Snapshot made without them).
func (s Snapshot) fullNames() []string {
	if len(s.full) == len(s.report.Tests) {
		return s.full
	}
	return fullNames(s.report)
}

// PrevHeads are the earlier heads of this run's line of work (lineHeads)
// that the entry this run writes names (ledger.Entry.PrevHeads), oldest
// first; since is the oldest of them in this head's history; seq is the
// entry's place in the line (ledger.Entry.Seq).
//
// The names form a skip list over Seq with express links of fan-out
// ledger.SkipBase = b: every entry names the entries one below it (all the
// heads at the highest seq its run read), and an entry at a multiple of b
// also the entry b below, at a multiple of b² also the one b² below, and
// so on. Following the links one below reaches every entry of the line;
// the express links bound the rounds (at most about 2b a level: down to
// the nearest multiple of each level, then across it). An entry names a
// head or two and one more a level it sits on, so it stays under 2 KB
// however long the line (the version before named about b heads a level:
// 2.5 KB at the 1,000th push; before that, every earlier head, and the
// ledger grew as pushes²). Heads in this
// head's history are named too where the list has them: a later force push
// may take them away, and a reader of the newest commits only does not
// read them. Any entry of the line the list does not reach (an entry from
// before Seq, a gap, one written late) is named as well: the reader must
// be able to reach every entry this run read. So is the head the branch
// was at before this push (Run.Before) when this run read no entry there
// and it is in this head's history (base..head: never a commit of the
// base, whose entries are no push of this line): its run may still write
// one, and the next reader must look. A head a force push replaced is
// found through the pull request's force pushes instead.
func (s Snapshot) PrevHeads() (prev []string, since string, seq int) {
	var line []ledger.Entry
	for _, e := range s.ledger.Entries {
		if inLine(e, s.meta, s.line) {
			line = append(line, e)
		}
	}
	history := make(map[string]bool, len(s.input.Commits))
	for _, c := range s.input.Commits {
		history[strings.ToLower(c.SHA)] = true
	}
	prev, since, seq = NamePrevHeads(line, s.ledger.Links, history, s.run.Head)
	since = s.foldSince(since, history)
	if b := s.meta.Before; history[strings.ToLower(b)] && !breaker.SameSHA(b, s.run.Head) && !slices.ContainsFunc(s.ledger.Entries, func(e ledger.Entry) bool { return breaker.SameSHA(e.Head, b) }) &&
		!slices.ContainsFunc(prev, func(h string) bool { return breaker.SameSHA(h, b) }) {
		prev = append(prev, b) // newest: no entry orders it
		if len(prev) > ledger.MaxPrevHeads {
			prev = prev[len(prev)-ledger.MaxPrevHeads:]
		}
	}
	return prev, since, seq
}

// NamePrevHeads is Snapshot.PrevHeads over the entries of a line of work:
// what the entry at head names, given the line's entries its run read, the
// entries at express-link places below them (Ledger.Links: a run from a
// carry reads only the newest entries) and the commits of head's history
// (lower-case SHAs).
func NamePrevHeads(line, links []ledger.Entry, history map[string]bool, head string) (prev []string, since string, seq int) {
	entries := append([]ledger.Entry(nil), line...)
	ledger.Sort(entries)
	self := strings.ToLower(head)
	bySeq := map[int][]string{}
	names := map[string][]string{} // head → the heads its entries name
	var order []string             // the line's earlier heads, oldest first
	seen := map[string]bool{self: true}
	top := 0
	for _, e := range entries {
		h := strings.ToLower(e.Head)
		top = max(top, e.Seq)
		names[h] = append(names[h], e.PrevHeads...)
		if h == self {
			continue
		}
		if e.Seq > 0 {
			bySeq[e.Seq] = append(bySeq[e.Seq], e.Head)
		}
		if !seen[h] {
			seen[h] = true
			order = append(order, e.Head)
			if since == "" && history[h] {
				since = e.Head
			}
		}
	}
	seq = min(top+1, ledger.MaxSeq) // a forged seq at the bound never makes the next entry unreadable
	for _, e := range links {
		if h := strings.ToLower(e.Head); e.Seq > 0 && e.Seq < seq && h != self && !slices.Contains(bySeq[e.Seq], e.Head) {
			bySeq[e.Seq] = append(bySeq[e.Seq], e.Head)
		}
	}
	named := map[string]bool{}
	var picked []string
	name := func(h string) {
		if k := strings.ToLower(h); k != self && !named[k] {
			named[k] = true
			picked = append(picked, h)
		}
	}
	// The entries one below (every head at the highest seq read), and one
	// express link a level: b entries below at a multiple of b, b² below at
	// a multiple of b², and so on.
	pick := func(p int) {
		for _, h := range bySeq[p] {
			name(h)
		}
	}
	pick(seq - 1)
	for span := ledger.SkipBase; span < seq && seq%span == 0; span *= ledger.SkipBase {
		pick(seq - span)
	}
	// What the reader reaches from these names, following the names of the
	// entries it reads (this head's earlier entries too: a re-run reads them
	// with its own).
	reach := map[string]bool{}
	walk := func(h string) {
		stack := []string{h}
		for len(stack) > 0 {
			k := strings.ToLower(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			if !reach[k] {
				reach[k] = true
				stack = append(stack, names[k]...)
			}
		}
	}
	walk(self)
	for _, h := range picked {
		walk(h)
	}
	// Every entry the list does not reach is named outright, in this
	// head's history or not: a reader that reads only the newest commits
	// (LedgerQuery.Newest) finds the line through the names alone.
	for _, h := range order {
		if k := strings.ToLower(h); !reach[k] {
			name(h)
			walk(h)
		}
	}
	byAge := make(map[string]int, len(order))
	for i, h := range order {
		byAge[strings.ToLower(h)] = i
	}
	sort.SliceStable(picked, func(i, j int) bool { return byAge[strings.ToLower(picked[i])] < byAge[strings.ToLower(picked[j])] })
	if len(picked) > ledger.MaxPrevHeads {
		picked = picked[len(picked)-ledger.MaxPrevHeads:]
	}
	return picked, since, seq
}

// RecordedCheckpoint is the checkpoint of slice the ledger recorded first
// for this run's pull request (or branch): the rollback target. "" when
// no entry recorded one.
func (s Snapshot) RecordedCheckpoint(slice string) string {
	entries := append([]ledger.Entry(nil), s.ledger.Entries...)
	ledger.Sort(entries)
	for _, e := range entries {
		if e.Slice == slice && e.Checkpoint != "" && s.meta.Belongs(e) {
			return e.Checkpoint
		}
	}
	return ""
}

// OwnedTags are the tags run's pull request's ledger records creating or
// moving, each at the commit it was last put at.
func OwnedTags(l Ledger, run Run) []ledger.Tag {
	entries := append([]ledger.Entry(nil), l.Entries...)
	ledger.Sort(entries)
	at := map[string]string{}
	var names []string
	for _, e := range entries {
		if !run.Belongs(e) {
			continue
		}
		for _, t := range e.Tags {
			if _, ok := at[t.Name]; !ok {
				names = append(names, t.Name)
			}
			at[t.Name] = t.SHA
		}
	}
	out := make([]ledger.Tag, 0, len(names))
	for _, n := range names {
		out = append(out, ledger.Tag{Name: n, SHA: at[n]})
	}
	return out
}

// Belongs reports whether a ledger entry is of this run's pull request (or
// branch): see Run.Belongs.
func (s Snapshot) Belongs(e ledger.Entry) bool { return s.meta.Belongs(e) }
