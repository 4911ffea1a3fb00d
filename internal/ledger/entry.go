package ledger

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/rx"
)

// Schema names the entry format; it changes only when a field changes
// meaning or disappears.
const Schema = "greenlight-ledger/v2"

// KindBase marks an observation of the default branch (a push to it):
// the only kind of entry a pull request reads as what fails on its base.
const KindBase = "base"

// Entry is what CI observed at one pushed head.
type Entry struct {
	Schema string `json:"schema"`
	// Kind is KindBase for an observation of the default branch, written
	// by a run on a push to it; "" for a judged head. Inside the MAC: a
	// judged entry never passes for the base's.
	Kind string `json:"kind,omitempty"`
	// Check is the name of the check run the entry was written in, when
	// the breaker runs as a GitHub App of its own (app-id): its check runs
	// are read by the App whatever their name, so one renamed is named as
	// tampering, and another configuration's (another check name) is not
	// this ledger's. Inside the MAC.
	Check      string    `json:"check,omitempty"`
	Head       string    `json:"head"`
	ObservedAt time.Time `json:"observed_at"`
	RunID      int64     `json:"run_id"`
	// RunAttempt is the attempt of run RunID that observed Head, when a
	// re-run (2 or more); absent for the first. Two entries of one run and
	// attempt at one head are a matrix's legs, one observation together.
	RunAttempt int     `json:"run_attempt,omitempty"`
	Event      string  `json:"event"`
	PR         int     `json:"pr"`              // 0 when no pull request
	Slice      string  `json:"slice"`           // the slice the run decided for
	Infra      *string `json:"infra,omitempty"` // why the tests did not run; absent when they ran
	// InfraKind is what kind of reason Infra is: no_results, build (failed
	// pushes) or cancelled (not counted); absent in entries from before it.
	InfraKind string `json:"infra_kind,omitempty"`
	Counts    Counts `json:"counts"`
	// Verdict is what the run decided for the slice at Head: it survives a
	// force push that takes the commits (and their trailers) away.
	Verdict Verdict `json:"verdict"`
	// Tests are every test failing or erroring at Head and every test that
	// failed at an earlier observed push of the line of work, with its
	// status now (absent when the results no longer carry it). Passing
	// tests that never failed are not kept: Known says which tests ran.
	Tests []Test `json:"tests"`
	// Errors are CI's error lines (the first line of each failure message,
	// clipped to MaxErrorBytes) of the tests an OPEN verdict's diagnostic
	// names, at most MaxErrors, or of a failed push's lead test: what a
	// later run that ran no tests (a maintainer's reset or /breaker debug)
	// shows and hands the agent's next attempt. Absent otherwise.
	Errors map[string]string `json:"errors,omitempty"`
	// Reset records a verified human reset made at Head: who and their
	// words. Null otherwise.
	Reset *Reset `json:"reset,omitempty"`
	// Branch is the branch judged (the pull request's head branch): with PR,
	// whose observations these are. Entries written before it existed
	// lack it.
	Branch string `json:"branch,omitempty"`
	// PrevHeads are the heads the breaker observed for this line of work
	// before this one that are not in this head's history (base..head),
	// oldest first: a rebase or a squash takes commits off the branch,
	// never an observation out of the ledger, since the reader fetches
	// every head an entry names. Since is the oldest earlier head that is
	// in this head's history: the heads from it to Head are read with the
	// history, and with Head's own history (ReadAncestry) once Head itself
	// is taken off the branch. An entry so stays small however many pushes
	// came before it in a line of work that is not rewritten.
	PrevHeads []string `json:"prev_heads,omitempty"`
	Since     string   `json:"since,omitempty"`
	// Seq is the entry's place in its line of work: one more than the
	// highest Seq among the line's entries its run read. PrevHeads name the
	// line's entries by Seq as a skip list (evaluate.Snapshot.PrevHeads):
	// the entries one below, and one express link a level the entry sits
	// on (SkipBase below at a multiple of SkipBase, SkipBase² below at a
	// multiple of SkipBase², ...); so an entry names a head or two and one
	// a level however long the line, and the reader still reaches every
	// entry, within about 2·SkipBase rounds a level.
	Seq int `json:"seq,omitempty"`
	// Checkpoint is the slice's checkpoint as this run found it: the commit
	// its first attempt started from. The first entry of a slice that has
	// one is the rollback target; a tag is never.
	Checkpoint string `json:"checkpoint,omitempty"`
	// OnTrip is what this run did on the pull request because the breaker
	// tripped (the on-trip inputs), so a verified reset undoes exactly that.
	OnTrip *OnTrip `json:"on_trip,omitempty"`
	// Tags are the breaker's tags this run created or moved, with where it
	// put them: the tags this pull request owns, and the only ones its
	// cleanup deletes.
	Tags []Tag `json:"tags,omitempty"`
	// Cut is how many tests were left out to keep the entry under its
	// size bound; the first ones kept are the failing ones.
	Cut int `json:"cut,omitempty"`
	// Known says which tests the run had, for the progress rule (known.go):
	// a filter of them all, or the names no earlier entry knew. Null for a
	// head whose tests did not run.
	Known *Known `json:"known,omitempty"`
	// Names is the Digest of every test name the run had: a later run
	// with the same names knows none of its tests is new (a test failing
	// there for the first time ran before). Absent for a head whose tests
	// did not run.
	Names string `json:"names,omitempty"`
	// PassedBefore are the rows of Tests failing here for the first time
	// in the line that ran at an earlier push (breaker.Push.KnownBefore).
	PassedBefore []int `json:"passed_before,omitempty"`
	// Carry is the fold of the line's pushes before the newest ones
	// (carry.go); absent when the run could not vouch for one.
	Carry *Carry `json:"carry,omitempty"`
	MAC   string `json:"mac,omitempty"` // hex HMAC-SHA256 of the canonical JSON
	// FoldCarry and KnownBeforeNames are the writer's hints to Encode for
	// Carry and PassedBefore, which name tests by their rows once the rows
	// are fitted and sorted. Not written.
	FoldCarry        *FoldHint `json:"-"`
	KnownBeforeNames []string  `json:"-"`
	// History names (by FullName) the tests that failed at an earlier push
	// of the slice: when passes must be cut, theirs are kept first, since
	// a pass after a failure is what tells progress from oscillation. Not
	// written: the writer's hint to Encode.
	History map[string]bool `json:"-"`
	// CheckRunID is the id of the check run the entry was read from, set
	// by the reader (GitHub's ids grow with time): what orders a record
	// that did not verify against a reset. Not written.
	CheckRunID int64 `json:"-"`
	// KnownNames, when set, are the full names of every test of the run:
	// Encode writes their filter in Known, sized to the room the entry
	// leaves. Not written: the writer's hint to Encode.
	KnownNames []string `json:"-"`
}

// The bounds of Entry.Errors.
const (
	MaxErrors     = 3
	MaxErrorBytes = 160
)

// Counts are the run's test counts at Head.
type Counts struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Errored int `json:"errored,omitempty"`
	Skipped int `json:"skipped,omitempty"`
}

// Reset is a verified human reset, as the ledger keeps it.
type Reset struct {
	Author string    `json:"author"`
	Text   string    `json:"text"`
	At     time.Time `json:"at"`
	// CommentID is the maintainer's comment that asked for it: one comment
	// gives one reset.
	CommentID int64 `json:"comment_id,omitempty"`
	// Prior is the <prior_attempts> block the reset hands the agent's next
	// invocation: what was tried, CI's errors, the guidance (bounded by
	// MaxPrior).
	Prior string `json:"prior,omitempty"`
}

// MaxPrior bounds a reset's prior-attempts block.
const MaxPrior = 8192

// OnTrip is what a run did on the pull request at a trip.
type OnTrip struct {
	// Label is the label it put on the pull request (on-trip-label).
	Label string `json:"label,omitempty"`
	// Removed are the labels it took off (on-trip-remove-labels: those
	// that start the agent), which a verified reset puts back.
	Removed []string `json:"removed,omitempty"`
	// Unassigned are the logins it unassigned from the pull request
	// (on-trip-unassign: the agent's), which a verified reset assigns
	// again.
	Unassigned []string `json:"unassigned,omitempty"`
	// IssueUnassigned are the same, on the issues the pull request closes.
	IssueUnassigned []IssueLogins `json:"issue_unassigned,omitempty"`
	// Reviewers are the people and teams (ORG/SLUG) it asked to review
	// (on-trip-request-review), whose request a verified reset takes back.
	Reviewers []string `json:"reviewers,omitempty"`
	// Drafted says it turned the pull request, ready for review then, into
	// a draft (on-trip-draft); a verified reset marks it ready again.
	Drafted bool `json:"drafted,omitempty"`
	// Cancelled are the workflow runs in progress on the branch it
	// cancelled (cancel-workflows): nothing a reset can undo.
	Cancelled []int64 `json:"cancelled,omitempty"`
}

// IssueLogins are logins unassigned from one issue.
type IssueLogins struct {
	Issue  int      `json:"issue"`
	Logins []string `json:"logins"`
}

// Tag is a tag a run created or moved: its name (without refs/tags/) and
// the commit it put it at.
type Tag struct {
	Name string `json:"name"`
	SHA  string `json:"sha"`
}

// Verdict is a run's decision, as the ledger keeps it.
type Verdict struct {
	State       breaker.State      `json:"state"`
	TripReason  breaker.TripReason `json:"trip_reason,omitempty"`
	TotalFailed int                `json:"total_failed"`
}

// Test is one test at Head.
type Test struct {
	Suite       string             `json:"suite,omitempty"` // classname or package; "" when none
	Name        string             `json:"name"`
	Status      breaker.TestStatus `json:"status"` // pass, fail, error, skip or absent
	Fingerprint string             `json:"fingerprint,omitempty"`
}

// MarshalJSON writes a test as an array, [suite, name, status] and the
// fingerprint when there is one: an entry's size is mostly its tests, and
// the keys of an object would double it.
func (t Test) MarshalJSON() ([]byte, error) {
	a := []string{t.Suite, t.Name, string(t.Status)}
	if t.Fingerprint != "" {
		a = append(a, t.Fingerprint)
	}
	return json.Marshal(a)
}

// UnmarshalJSON reads a test MarshalJSON wrote: three or four strings.
func (t *Test) UnmarshalJSON(b []byte) error {
	var a []string
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("a test is [suite, name, status, fingerprint?]: %w", err)
	}
	return t.fromList(a)
}

// fromList reads a test from its list of strings.
func (t *Test) fromList(a []string) error {
	if len(a) < 3 || len(a) > 4 {
		return fmt.Errorf("a test is [suite, name, status, fingerprint?], not %d strings", len(a))
	}
	*t = Test{Suite: a[0], Name: a[1], Status: breaker.TestStatus(a[2])}
	if len(a) == 4 {
		if a[3] == "" {
			return errors.New("a test's fingerprint is empty: leave it out")
		}
		t.Fingerprint = a[3]
	}
	return nil
}

// FullName is the test's name qualified by its suite, as the breaker reports it.
func (t Test) FullName() string {
	if t.Suite == "" {
		return t.Name
	}
	return t.Suite + "." + t.Name
}

// Canonical is the entry's JSON without its MAC: the bytes the MAC covers.
// Field order is the struct's, tests are sorted by suite and name, times are UTC with
// nanoseconds cut, so the same observation always gives the same bytes.
func (e Entry) Canonical() []byte {
	e.MAC = ""
	return e.normal().json()
}

// normal is the entry in canonical form.
func (e Entry) normal() Entry {
	e.Schema = Schema
	e.ObservedAt = e.ObservedAt.UTC().Truncate(time.Second)
	e.Tests = append([]Test{}, e.Tests...)
	sortTests(e.Tests)
	return e
}

// sortTests orders tests by suite, then name.
func sortTests(ts []Test) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].Suite != ts[j].Suite {
			return ts[i].Suite < ts[j].Suite
		}
		return ts[i].Name < ts[j].Name
	})
}

// json marshals the entry; its fields are plain values, so it cannot fail.
func (e Entry) json() []byte {
	b, _ := json.Marshal(e)
	return b
}

// Sign returns the entry with its MAC set under key.
func Sign(e Entry, key []byte) Entry {
	e.MAC = mac(e, key)
	return e
}

// Verify reports whether the entry's MAC is the one key gives.
func Verify(e Entry, key []byte) bool {
	want, err := hex.DecodeString(e.MAC)
	if err != nil || e.MAC == "" {
		return false
	}
	got, _ := hex.DecodeString(mac(e, key))
	return hmac.Equal(got, want)
}

// Trusted reports whether a run may take e as CI's evidence: with a key,
// when its MAC verifies; without one, always (an unsigned entry is as
// trustworthy as the identity that wrote it, DESIGN §6: any workflow whose
// token may write checks can write or rewrite one, and the report says the
// ledger is unsigned).
func Trusted(e Entry, key []byte) bool { return len(key) == 0 || Verify(e, key) }

func mac(e Entry, key []byte) string {
	h := hmac.New(sha256.New, key)
	h.Write(e.Canonical())
	return hex.EncodeToString(h.Sum(nil))
}

// The block that holds an entry inside a check run's output text.
const (
	blockStart = "<!-- greenlight-ledger:v2"
	blockEnd   = "greenlight-ledger -->"
)

// MaxPrevHeads bounds the earlier heads one entry names: 1,000 pushes of
// one pull request.
const MaxPrevHeads = 1000

// MaxSeq bounds an entry's place in its line: a billion pushes.
const MaxSeq = 1_000_000_000

// SkipBase is the fan-out of the skip list's express links (Seq).
const SkipBase = 8

// MaxText is GitHub's limit on a check run's output text, in characters.
const MaxText = 65535

// maxEntryBytes leaves room in the text for the lines around the block.
const maxEntryBytes = 60000

// Encode renders the entry as the machine-readable block of a check run's
// output text: an HTML comment (invisible on GitHub) holding the signed
// canonical JSON. KnownNames become Known's filter, sized to the room left;
// past the size bound tests are cut, the failing ones kept first, and Cut
// says how many; the MAC covers what is kept. key may be nil: the entry is then unsigned.
// The entry returned is the one written, every test it keeps in Tests.
func Encode(e Entry, key []byte) (string, Entry) {
	if e.FoldCarry == nil && e.Carry != nil { // a decoded entry, written again
		e.FoldCarry = &FoldHint{Carry: e.Fold(""), After: e.Carry.NewestEntries(), Limit: e.Carry.NoProgressLimit(), Base: e.Carry.Base, Read: e.Carry.Read, OnTrip: e.Carry.OnTrip, Edge: e.Carry.Edge}
	}
	if e.KnownBeforeNames == nil && len(e.PassedBefore) > 0 {
		e.KnownBeforeNames = e.KnownBefore()
	}
	e = fit(e).normal()
	e.setCarry()
	e.MAC = ""
	if key != nil {
		e = Sign(e, key)
	}
	return blockStart + "\n" + string(e.normal().json()) + "\n" + blockEnd + "\n", e
}

// ErrNoEntry is returned by Decode for a text that holds no entry block.
var ErrNoEntry = errors.New("no ledger entry in the text")

// maxDecode bounds what Decode reads of one text.
const maxDecode = 1 << 20

// Decode reads the entry block out of a check run's output text. A text
// without a block is ErrNoEntry; a block that is not a valid entry is an
// error naming what is wrong.
func Decode(text string) (Entry, error) {
	if len(text) > maxDecode {
		return Entry{}, fmt.Errorf("ledger text is %d bytes, over the %d-byte bound", len(text), maxDecode)
	}
	i := strings.Index(text, blockStart)
	if i < 0 {
		return Entry{}, ErrNoEntry
	}
	rest := text[i+len(blockStart):]
	j := strings.Index(rest, blockEnd)
	if j < 0 {
		return Entry{}, errors.New("ledger block is not closed")
	}
	e, err := decodeJSON(strings.TrimSpace(rest[:j]))
	if err != nil {
		return Entry{}, fmt.Errorf("ledger block: %w", err)
	}
	return e, nil
}

// decodeJSON reads one entry's JSON, strictly: no unknown field, the
// schema, a commit id, known statuses.
func decodeJSON(s string) (Entry, error) {
	// The tests are read as lists of strings, which the decoder does in
	// one pass; a Test's own UnmarshalJSON per test would scan each again.
	var w struct {
		Entry
		Tests [][]string `json:"tests"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Entry{}, err
	}
	if dec.More() {
		return Entry{}, errors.New("more than one JSON value")
	}
	e := w.Entry
	e.Tests = make([]Test, len(w.Tests))
	for i, a := range w.Tests {
		if err := e.Tests[i].fromList(a); err != nil {
			return Entry{}, err
		}
	}
	if e.Schema != Schema {
		return Entry{}, fmt.Errorf("schema %q, want %q", e.Schema, Schema)
	}
	if !validSHA(e.Head) {
		return Entry{}, fmt.Errorf("head %q is not a commit id", e.Head)
	}
	if e.Kind != "" && e.Kind != KindBase {
		return Entry{}, fmt.Errorf("kind %q, want %q or none", e.Kind, KindBase)
	}
	if e.Reset != nil && len(e.Reset.Prior) > MaxPrior {
		return Entry{}, fmt.Errorf("the reset's prior attempts are %d bytes, over the %d bound", len(e.Reset.Prior), MaxPrior)
	}
	if e.Seq < 0 || e.Seq > MaxSeq {
		return Entry{}, fmt.Errorf("seq %d is outside 0..%d", e.Seq, MaxSeq)
	}
	if len(e.PrevHeads) > MaxPrevHeads {
		return Entry{}, fmt.Errorf("%d earlier heads, over the %d bound", len(e.PrevHeads), MaxPrevHeads)
	}
	for _, h := range e.PrevHeads {
		if !validSHA(h) {
			return Entry{}, fmt.Errorf("earlier head %q is not a commit id", h)
		}
	}
	if e.Since != "" && !validSHA(e.Since) {
		return Entry{}, fmt.Errorf("since %q is not a commit id", e.Since)
	}
	if e.Checkpoint != "" && !validSHA(e.Checkpoint) {
		return Entry{}, fmt.Errorf("checkpoint %q is not a commit id", e.Checkpoint)
	}
	for _, t := range e.Tests {
		switch t.Status {
		case breaker.StatusPass, breaker.StatusFail, breaker.StatusError, breaker.StatusSkip, breaker.StatusAbsent:
		default:
			return Entry{}, fmt.Errorf("test %q has status %q", t.Name, t.Status)
		}
	}
	if err := e.Known.check(); err != nil {
		return Entry{}, err
	}
	if err := e.checkCarry(); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// ValidSHA reports whether s is a full commit id (SHA-1 or SHA-256, hex).
func ValidSHA(s string) bool { return validSHA(s) }

func validSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// Sort orders entries oldest first: by observation time, then run id.
func Sort(es []Entry) {
	sort.SliceStable(es, func(i, j int) bool {
		if !es[i].ObservedAt.Equal(es[j].ObservedAt) {
			return es[i].ObservedAt.Before(es[j].ObservedAt)
		}
		// One second (observed_at is kept to the second): the line's
		// order, then the run's.
		if es[i].Seq != es[j].Seq && es[i].Seq > 0 && es[j].Seq > 0 {
			return es[i].Seq < es[j].Seq
		}
		return es[i].RunID < es[j].RunID
	})
}

// Fingerprint is a short hash of a failure's normalised message and type:
// equal for the same error at different lines, times or addresses. Digits
// become 0, runs of hex letters and digits of 8 or more become x, white
// space collapses; only the first 4 KiB of the message count. Eight hex
// digits: two different errors of one test agree once in four billion,
// and when they do the breaker only calls them the same error (stricter,
// never looser); an entry is mostly its failing tests, each with one.
func Fingerprint(message, typ string) string {
	if message == "" && typ == "" {
		return ""
	}
	if len(message) > 4096 {
		message = message[:4096]
	}
	h := sha256.New()
	h.Write([]byte(strings.TrimSpace(typ)))
	h.Write([]byte{0})
	h.Write([]byte(normaliseMessage(message)))
	return hex.EncodeToString(h.Sum(nil))[:8]
}

var (
	hexRun = rx.Lazy(`[0-9a-fA-F]{8,}`)
	digits = rx.Lazy(`[0-9]+`)
)

func normaliseMessage(s string) string {
	s = hexRun().ReplaceAllString(s, "x")
	s = digits().ReplaceAllString(s, "0")
	return strings.Join(strings.Fields(s), " ")
}

// maxLine bounds one line of a JSON-lines ledger file.
const maxLine = 1 << 20

// ReadLines reads entries as JSON lines, oldest first (what `breaker
// ledger` prints and `breaker evaluate --ledger` reads). Blank lines are
// skipped; a line that is not an entry is an error naming its number.
func ReadLines(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var out []Entry
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		e, err := decodeJSON(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("after %d entries: %w (a line is limited to %d bytes)", len(out), err, maxLine)
	}
	return out, nil
}

// WriteLines writes entries as JSON lines.
func WriteLines(w io.Writer, es []Entry) error {
	for _, e := range es {
		if _, err := w.Write(append(e.normal().json(), '\n')); err != nil {
			return err
		}
	}
	return nil
}
