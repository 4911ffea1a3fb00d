package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// Carry is the fold of a line's pushes before the newest ones
// (breaker.Carry), as an entry keeps it inside its MAC: a run whose push
// comes right after this entry's needs this entry and the After-1 entries
// before it (by Seq), not the whole line (docs/ledger.md "The folded
// state"). The tests it keeps are the entry's own rows, flagged in Tests;
// its slice is the entry's, and the head of its newest push (the edge) is
// the entry's at Seq-After, which its reader reads with the entries after
// it.
type Carry struct {
	Others bool `json:"others,omitempty"`
	// After is how many of the line's newest entries the carry leaves out:
	// this one and the After-1 before it; absent when breaker.Window-1
	// (NewestEntries).
	After  int `json:"after,omitempty"`
	Pushes int `json:"pushes"`
	Prior  int `json:"prior,omitempty"`
	// Reset is the first 16 hex digits of the head of the newest folded
	// push that records a reset (its reader finds the commit in the
	// branch's history; a reset whose head the branch no longer has is
	// read from the whole line).
	Reset string `json:"reset,omitempty"`
	// ResetBy is the login that asked for that reset and the id of its
	// comment, which a run without a ledger key reads back at every run.
	ResetBy       *CarryResetBy `json:"reset_by,omitempty"`
	Failed        int           `json:"failed,omitempty"`
	Streak        int           `json:"streak,omitempty"`
	ResultsStreak int           `json:"results_streak,omitempty"`
	Extra         int           `json:"extra,omitempty"`
	NoProgress    bool          `json:"no_progress,omitempty"`
	NoResults     bool          `json:"no_results,omitempty"`
	// MinFailing is -1 when no folded push had results.
	MinFailing int `json:"min_failing"`
	// Recorded is the trip reason of the first OPEN verdict a folded push
	// kept; Floor the highest count one kept.
	Recorded breaker.TripReason `json:"recorded,omitempty"`
	Floor    int                `json:"floor,omitempty"`
	// Open is whether the newest verdict of a named slice a folded push
	// kept was a trip; absent when none kept one.
	Open *bool `json:"open,omitempty"`
	// Tests has one character a row of the entry's tests: '-' for a test
	// the carry does not hold, else its flags (carryFlags).
	Tests string `json:"tests"`
	// Limit is the no-progress limit the pushes were folded with; Base the
	// digest of the base's failing tests they were judged beside (Digest,
	// "" for none).
	Limit int    `json:"limit,omitempty"` // absent when the default's (NoProgressLimit)
	Base  string `json:"base,omitempty"`
	// Read is the newest check run (GitHub's ids grow with time) among the
	// entries the fold read: one of the line written after it (a run that
	// finished late) is not in the carry, and its reader reads the whole
	// line.
	Read int64 `json:"read,omitempty"`
	// OnTrip says this entry, or an earlier one of its pull request since
	// its last reset, recorded what a trip did on the pull request
	// (Entry.OnTrip): a later run that starts from the carry does not do
	// it again.
	OnTrip bool `json:"on_trip,omitempty"`
	// Edge is the newest commit the folded pushes brought, when it is not
	// the head of the newest of them (the entry at Seq-After's): a commit
	// id, or "none" when no folded head was on the branch.
	Edge string `json:"edge,omitempty"`
	// Attempts is the fold of the declared attempts those pushes brought;
	// absent when none. AttemptRows holds those of its per-test counts
	// whose <prefix>Test name is the name of exactly one of the entry's
	// rows, one character a row: '-' for none, else the count, 1 to 35, in
	// base 36 (byRows); Attempts.PerTest the others.
	Attempts    *CarryAttempts `json:"attempts,omitempty"`
	AttemptRows string         `json:"attempt_rows,omitempty"`
	// BMAD is the bmad policy's fold of those pushes' sessions, PRP the
	// prp policy's of their iterations; absent under another policy.
	BMAD *CarryBMAD `json:"bmad,omitempty"`
	PRP  *CarryPRP  `json:"prp,omitempty"`
	Liza *CarryLiza `json:"liza,omitempty"`
}

// CarryLiza is breaker.LizaFold on the wire, written as a list
// (MarshalJSON): [at, fails, rows, tests?]. rows has one character a row
// of the entry's tests: '-' for a test the fold does not hold, '=' for one
// that failed at fails pushes, whose error pattern is the row's
// fingerprint and that last failed at at (the newest of them: a stuck
// test, the common case), '+' for one listed in tests as [row, fails,
// fingerprint?, at?]: its fingerprint when not the row's ("-" for none),
// and when it last failed when not at.
type CarryLiza struct {
	At    string
	Fails int
	Rows  string
	Tests []CarryLizaTest
}

// CarryLizaTest is one listed test of a CarryLiza.
type CarryLizaTest struct {
	Row, Fails  int
	Fingerprint string // "" when the row's
	At          string // "" when CarryLiza.At
}

// MarshalJSON writes the fold as a list.
func (l CarryLiza) MarshalJSON() ([]byte, error) {
	v := []any{l.At, l.Fails, l.Rows}
	if len(l.Tests) > 0 {
		tests := make([][]any, 0, len(l.Tests))
		for _, t := range l.Tests {
			tv := []any{t.Row, t.Fails}
			if t.Fingerprint != "" || t.At != "" {
				tv = append(tv, t.Fingerprint)
			}
			if t.At != "" {
				tv = append(tv, t.At)
			}
			tests = append(tests, tv)
		}
		v = append(v, tests)
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads the list MarshalJSON writes.
func (l *CarryLiza) UnmarshalJSON(data []byte) error {
	*l = CarryLiza{}
	var raw []json.RawMessage
	if err := decodeList(data, "the carry's liza fold is [at, fails, rows, tests?]", func(n int) bool { return n == 3 || n == 4 },
		&l.At, &l.Fails, &l.Rows, &raw); err != nil {
		return err
	}
	for k, r := range raw {
		var t CarryLizaTest
		if err := decodeList(r, fmt.Sprintf("the carry's liza test %d is [row, fails, fingerprint?, at?]", k+1),
			func(n int) bool { return n >= 2 && n <= 4 }, &t.Row, &t.Fails, &t.Fingerprint, &t.At); err != nil {
			return err
		}
		l.Tests = append(l.Tests, t)
	}
	return nil
}

// check validates the liza fold of a carry against the entry's tests.
func (l *CarryLiza) check(tests []Test) error {
	if l == nil {
		return nil
	}
	if _, err := time.Parse(time.RFC3339, l.At); err != nil && l.At != "" {
		return fmt.Errorf("the carry's liza at %q is not an RFC 3339 time", l.At)
	}
	if len(l.Rows) != len(tests) {
		return fmt.Errorf("the carry's liza fold flags %d tests, the entry holds %d", len(l.Rows), len(tests))
	}
	if l.Fails < 0 || l.Fails > MaxCarryCount || strings.Contains(l.Rows, "=") && (l.Fails < 1 || l.At == "") {
		return fmt.Errorf("the carry's liza fails %d is outside 1..%d, or its at is missing", l.Fails, MaxCarryCount)
	}
	var listed []int
	for i := 0; i < len(l.Rows); i++ {
		switch l.Rows[i] {
		case '-', '=':
		case '+':
			listed = append(listed, i)
		default:
			return fmt.Errorf("the carry's liza flag %q of test %d is not one of %q", l.Rows[i], i, "-=+")
		}
	}
	if len(listed) != len(l.Tests) {
		return fmt.Errorf("the carry's liza fold lists %d tests, its rows flag %d", len(l.Tests), len(listed))
	}
	for k, t := range l.Tests {
		if t.Row != listed[k] {
			return fmt.Errorf("the carry's liza test %d names row %d, not the row its flags list there (%d)", k+1, t.Row, listed[k])
		}
		if t.Fails < 1 || t.Fails > MaxCarryCount {
			return fmt.Errorf("the carry's liza test %d failed at %d pushes, outside 1..%d", k+1, t.Fails, MaxCarryCount)
		}
		if t.Fingerprint != "" && t.Fingerprint != "-" && !validFingerprint(t.Fingerprint) {
			return fmt.Errorf("the carry's liza test %d has fingerprint %q, not hex digits or \"-\"", k+1, t.Fingerprint)
		}
		if _, err := time.Parse(time.RFC3339, t.At); t.At != "" && err != nil {
			return fmt.Errorf("the carry's liza test %d has at %q, not an RFC 3339 time", k+1, t.At)
		}
	}
	return nil
}

// validFingerprint says s is a fingerprint as entries write them: hex
// digits, at most 16.
func validFingerprint(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	_, err := hex.DecodeString(s + strings.Repeat("0", len(s)%2))
	return err == nil
}

// fingerprintPattern is the error pattern a liza fold gives a test whose
// failures had no message (breaker.LizaTest.Pattern).
const fingerprintPattern = "fingerprint "

// wireLiza is f as an entry keeps it, its tests by the entry's rows (row:
// full name → row); ok false when one is not a row of the entry, or its
// pattern is a message's (folded pushes are the ledger's, which keeps
// fingerprints, not messages).
func wireLiza(f *breaker.LizaFold, row map[string]int, tests []Test) (*CarryLiza, bool) {
	if f == nil {
		return nil, true
	}
	w := &CarryLiza{Rows: strings.Repeat("-", len(tests))}
	var newest time.Time
	for _, t := range f.Tests {
		if t.Last.After(newest) {
			newest = t.Last
		}
	}
	if len(f.Tests) > 0 {
		w.At = newest.UTC().Format(time.RFC3339)
	}
	byRow := map[int]CarryLizaTest{}
	common := map[int]int{} // fails → tests that need nothing else
	for name, t := range f.Tests {
		i, ok := row[name]
		if !ok {
			return nil, false
		}
		ct := CarryLizaTest{Row: i, Fails: t.Fails}
		switch fp, isFP := strings.CutPrefix(t.Pattern, fingerprintPattern); {
		case t.Pattern == "":
			ct.Fingerprint = "-"
		case !isFP || !validFingerprint(fp):
			return nil, false
		case fp != tests[i].Fingerprint:
			ct.Fingerprint = fp
		}
		if at := t.Last.UTC().Format(time.RFC3339); at != w.At {
			ct.At = at
		}
		byRow[i] = ct
		if ct.Fingerprint == "" && ct.At == "" {
			common[ct.Fails]++
		}
	}
	for fails, n := range common {
		if n > common[w.Fails] || n == common[w.Fails] && fails < w.Fails {
			w.Fails = fails
		}
	}
	rows := []byte(w.Rows)
	for i := range rows {
		ct, ok := byRow[i]
		switch {
		case !ok:
		case ct.Fingerprint == "" && ct.At == "" && ct.Fails == w.Fails:
			rows[i] = '='
		default:
			rows[i] = '+'
			w.Tests = append(w.Tests, ct)
		}
	}
	w.Rows = string(rows)
	return w, true
}

// fold is l as the engine takes it, its tests named by the entry's rows.
func (l *CarryLiza) fold(tests []Test) *breaker.LizaFold {
	f := &breaker.LizaFold{Tests: map[string]*breaker.LizaTest{}}
	at, _ := time.Parse(time.RFC3339, l.At)
	pattern := func(row int, fp string) string {
		switch fp {
		case "":
			if fp = tests[row].Fingerprint; fp == "" {
				return ""
			}
		case "-":
			return ""
		}
		return fingerprintPattern + fp
	}
	for i := 0; i < len(l.Rows) && i < len(tests); i++ {
		if l.Rows[i] == '=' {
			f.Tests[tests[i].FullName()] = &breaker.LizaTest{Fails: l.Fails, Pattern: pattern(i, ""), Last: at}
		}
	}
	for _, t := range l.Tests {
		if t.Row < 0 || t.Row >= len(tests) {
			continue
		}
		lt := &breaker.LizaTest{Fails: t.Fails, Pattern: pattern(t.Row, t.Fingerprint), Last: at}
		if t.At != "" {
			lt.Last, _ = time.Parse(time.RFC3339, t.At)
		}
		f.Tests[tests[t.Row].FullName()] = lt
	}
	return f
}

// CarryPRP is breaker.PRPFold on the wire, written as a list
// (MarshalJSON): [phase, state, iterations, no_progress, same_error,
// last_error_hash, prev_total, prev_passed, prev_failed, passing_changed,
// opened_at, open_reason].
type CarryPRP struct {
	Phase                             string
	State                             breaker.State
	Iterations, NoProgress, SameError int
	LastErrorHash                     string
	PrevTotal, PrevPassed, PrevFailed int
	PassingChanged                    bool
	OpenedAt                          string // RFC 3339, "" when not OPEN
	OpenReason                        string
}

// MarshalJSON writes the fold as a list.
func (p CarryPRP) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{p.Phase, p.State, p.Iterations, p.NoProgress, p.SameError, p.LastErrorHash,
		p.PrevTotal, p.PrevPassed, p.PrevFailed, p.PassingChanged, p.OpenedAt, p.OpenReason})
}

// UnmarshalJSON reads the list MarshalJSON writes.
func (p *CarryPRP) UnmarshalJSON(data []byte) error {
	*p = CarryPRP{}
	return decodeList(data, "the carry's prp fold is [phase, state, iterations, no_progress, same_error, last_error_hash, prev_total, prev_passed, prev_failed, passing_changed, opened_at, open_reason]",
		func(n int) bool { return n == 12 },
		&p.Phase, &p.State, &p.Iterations, &p.NoProgress, &p.SameError, &p.LastErrorHash,
		&p.PrevTotal, &p.PrevPassed, &p.PrevFailed, &p.PassingChanged, &p.OpenedAt, &p.OpenReason)
}

// check validates the prp fold of a carry.
func (p *CarryPRP) check() error {
	if p == nil {
		return nil
	}
	if err := breaker.CheckPhase(p.Phase); err != nil || p.Phase != strings.ToUpper(p.Phase) {
		return fmt.Errorf("the carry's prp phase %q is not one of RED, GREEN, REFACTOR, DOCUMENT", p.Phase)
	}
	switch p.State {
	case breaker.StateClosed, breaker.StateHalfOpen, breaker.StateOpen:
	default:
		return fmt.Errorf("the carry's prp state %q is not CLOSED, HALF_OPEN or OPEN", p.State)
	}
	for _, v := range []int{p.Iterations, p.NoProgress, p.SameError, p.PrevTotal, p.PrevPassed, p.PrevFailed} {
		if v < 0 || v > MaxCarryCount {
			return fmt.Errorf("a count %d of the carry's prp fold is outside 0..%d", v, MaxCarryCount)
		}
	}
	if p.NoProgress > p.Iterations || p.SameError > p.Iterations {
		return fmt.Errorf("the carry's prp fold counts %d iterations, %d without progress and %d with the same error", p.Iterations, p.NoProgress, p.SameError)
	}
	if p.LastErrorHash != "" {
		if _, err := hex.DecodeString(p.LastErrorHash); err != nil || len(p.LastErrorHash) != 16 {
			return fmt.Errorf("the carry's prp last_error_hash %q is not 16 hex digits", p.LastErrorHash)
		}
	}
	if (p.State == breaker.StateOpen) != (p.OpenedAt != "") || len(p.OpenReason) > 200 {
		return fmt.Errorf("the carry's prp fold is %s, opened at %q (%.40q)", p.State, p.OpenedAt, p.OpenReason)
	}
	if p.OpenedAt != "" {
		if _, err := time.Parse(time.RFC3339, p.OpenedAt); err != nil {
			return fmt.Errorf("the carry's prp opened_at %q is not an RFC 3339 time", p.OpenedAt)
		}
	}
	return nil
}

// wirePRP is f as an entry keeps it (nil for none).
func wirePRP(f *breaker.PRPFold) *CarryPRP {
	if f == nil {
		return nil
	}
	w := &CarryPRP{Phase: f.Phase, State: f.State, Iterations: f.Iterations, NoProgress: f.NoProgressCount, SameError: f.SameErrorCount,
		LastErrorHash: f.LastErrorHash, PrevTotal: f.Prev.Total, PrevPassed: f.Prev.Passed, PrevFailed: f.Prev.Failed,
		PassingChanged: f.PassingChanged, OpenReason: shortReason(f.OpenReason)}
	if f.OpenedAt != nil {
		w.OpenedAt = f.OpenedAt.UTC().Format(time.RFC3339)
	}
	return w
}

// The reasons prp opens for (breaker.PRPFold.iterate), kept in a carry
// as a code and the count: "np3" for "No progress for 3 iterations",
// "se3" for "Same error repeated 3 times" (20 bytes of an entry's 2 KB).
var prpReasons = []struct{ code, format string }{
	{"np", "No progress for %d iterations"},
	{"se", "Same error repeated %d times"},
}

// shortReason is a prp open reason as a carry keeps it.
func shortReason(reason string) string {
	for _, r := range prpReasons {
		var n int
		if _, err := fmt.Sscanf(reason, r.format, &n); err == nil && fmt.Sprintf(r.format, n) == reason {
			return r.code + strconv.Itoa(n)
		}
	}
	return reason
}

// longReason is shortReason's reason again.
func longReason(short string) string {
	for _, r := range prpReasons {
		if n, err := strconv.Atoi(strings.TrimPrefix(short, r.code)); err == nil && strings.HasPrefix(short, r.code) && r.code+strconv.Itoa(n) == short {
			return fmt.Sprintf(r.format, n)
		}
	}
	return short
}

// fold is w as the engine takes it.
func (p *CarryPRP) fold() *breaker.PRPFold {
	f := &breaker.PRPFold{Phase: p.Phase, State: p.State, Iterations: p.Iterations, NoProgressCount: p.NoProgress, SameErrorCount: p.SameError,
		LastErrorHash: p.LastErrorHash, Prev: breaker.PushCounts{Total: p.PrevTotal, Passed: p.PrevPassed, Failed: p.PrevFailed},
		PassingChanged: p.PassingChanged, OpenReason: longReason(p.OpenReason)}
	if t, err := time.Parse(time.RFC3339, p.OpenedAt); err == nil {
		f.OpenedAt = &t
	}
	return f
}

// CarryBMAD is breaker.BMADFold on the wire, written as a list
// (MarshalJSON): [threshold, sessions, succeeded, failed, consecutive,
// triggered, prev_failed, prev_total, not_passing], where not_passing has
// one character a row of the entry's tests: '-' for a test that passed (or
// is not the newest folded session's), else its status there (bmadStatus).
type CarryBMAD struct {
	Threshold, Sessions, Succeeded, Failed, Consecutive int
	Triggered                                           bool
	PrevFailed, PrevTotal                               int
	NotPassing                                          string
}

// bmadStatus is the character of each status a not_passing row may have.
var bmadStatus = map[breaker.TestStatus]byte{breaker.StatusFail: 'f', breaker.StatusError: 'e', breaker.StatusSkip: 's', breaker.StatusAbsent: 'a'}

// MarshalJSON writes the fold as a list.
func (b CarryBMAD) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{b.Threshold, b.Sessions, b.Succeeded, b.Failed, b.Consecutive, b.Triggered, b.PrevFailed, b.PrevTotal, b.NotPassing})
}

// UnmarshalJSON reads the list MarshalJSON writes.
func (b *CarryBMAD) UnmarshalJSON(data []byte) error {
	*b = CarryBMAD{}
	return decodeList(data, "the carry's bmad fold is [threshold, sessions, succeeded, failed, consecutive, triggered, prev_failed, prev_total, not_passing]",
		func(n int) bool { return n == 9 },
		&b.Threshold, &b.Sessions, &b.Succeeded, &b.Failed, &b.Consecutive, &b.Triggered, &b.PrevFailed, &b.PrevTotal, &b.NotPassing)
}

// CarryResetBy is breaker.ResetBy on the wire, written as a list:
// [comment_id, author].
type CarryResetBy struct {
	CommentID int64
	Author    string
}

// MarshalJSON writes it as a list.
func (r CarryResetBy) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{r.CommentID, r.Author})
}

// UnmarshalJSON reads the list MarshalJSON writes.
func (r *CarryResetBy) UnmarshalJSON(data []byte) error {
	*r = CarryResetBy{}
	return decodeList(data, "the carry's reset_by is [comment_id, author]", func(n int) bool { return n == 2 }, &r.CommentID, &r.Author)
}

// CarryAttempts is breaker.AttemptFold on the wire, written as a list
// (MarshalJSON): [counted, prior, failed, per_test, trip, test, count],
// the trailing ones left out when empty.
type CarryAttempts struct {
	Counted int
	Prior   int
	Failed  int
	PerTest map[string]int
	Trip    breaker.TripReason
	Test    string
	Count   int
}

// MarshalJSON writes the attempts as a list: the keys of an object would
// take 50 bytes of an entry's 2 KB.
func (a CarryAttempts) MarshalJSON() ([]byte, error) {
	list := []any{a.Counted, a.Prior, a.Failed}
	if len(a.PerTest) > 0 || a.Trip != "" {
		perTest := a.PerTest
		if perTest == nil {
			perTest = map[string]int{}
		}
		list = append(list, perTest)
	}
	if a.Trip != "" {
		list = append(list, a.Trip)
	}
	if a.Test != "" || a.Count != 0 {
		list = append(list, a.Test, a.Count)
	}
	return json.Marshal(list)
}

// UnmarshalJSON reads the list MarshalJSON writes.
func (a *CarryAttempts) UnmarshalJSON(b []byte) error {
	*a = CarryAttempts{}
	err := decodeList(b, "the carry's attempts are [counted, prior, failed, per_test?, trip?, test?, count?]",
		func(n int) bool { return n >= 3 && n != 6 && n <= 7 },
		&a.Counted, &a.Prior, &a.Failed, &a.PerTest, &a.Trip, &a.Test, &a.Count)
	if len(a.PerTest) == 0 {
		a.PerTest = nil
	}
	return err
}

// decodeList reads a JSON list into fields, in order: as many values as
// ok allows, each of its field's type; an error names shape.
func decodeList(data []byte, shape string, ok func(n int) bool, fields ...any) error {
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("%s: %w", shape, err)
	}
	if !ok(len(list)) {
		return fmt.Errorf("%s, not %d values", shape, len(list))
	}
	for i, raw := range list {
		if err := json.Unmarshal(raw, fields[i]); err != nil {
			return fmt.Errorf("%s: value %d: %w", shape, i+1, err)
		}
	}
	return nil
}

// noEdge is Carry.Edge when no folded head was on the branch.
const noEdge = "none"

// A carry keeps at most maxCarriedNames <prefix>Test names, of at most
// maxCarriedBytes in all: the agent writes them. A fold that holds more
// keeps no carry, and the next run reads the whole line.
const (
	maxCarriedNames = 32
	maxCarriedBytes = 1024
)

// The flags of a carried test: one character of flagChars, its value the
// bits below plus the flip state times 8.
const (
	flagPassed          = 1
	flagPassedAfterFail = 2
	flagFlaky           = 4
	flagChars           = "0123456789abcdefghijklmnopqrstuv"
)

// MaxCarryCount bounds a carry's counts: a billion pushes, as Seq.
const MaxCarryCount = MaxSeq

// Digest is a short digest of a set of names (sorted, duplicates once):
// what an entry keeps of every test its run had (Entry.Names), and of the
// base's failing tests a carry was judged beside. 64 bits: two runs with
// different tests agree by accident once in 2^64; a forged agreement only
// makes a new test count as one that ran before, whose pass after failing
// is then no progress (the breaker stricter, never looser).
func Digest(names []string) string {
	if len(names) == 0 {
		return ""
	}
	sorted := names
	if !slices.IsSorted(names) { // a results file lists its tests in order, most often
		sorted = slices.Clone(names)
		slices.Sort(sorted)
	}
	// The names go to the hash 32 KB at a time: 20,000 small writes cost
	// more than the hashing, and one buffer of them all (a megabyte for a
	// large suite) is fresh memory a short run pays for in page faults.
	h := sha256.New()
	buf := make([]byte, 0, 32<<10)
	for i, n := range sorted {
		if i > 0 && n == sorted[i-1] {
			continue
		}
		if len(buf)+len(n)+1 > cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
		if len(n)+1 > cap(buf) {
			h.Write([]byte(n))
			h.Write([]byte{0})
			continue
		}
		buf = append(append(buf, n...), 0)
	}
	h.Write(buf)
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:8])
}

// setCarry writes the hints FoldCarry and KnownBeforeNames into the wire
// fields, against the entry's tests as they are now (fitted and sorted).
// A carried test the entry no longer holds (cut) leaves no carry: the next
// testFlags are the carry's flags of its tests, one a row of the entry
// (row: by full name; n rows); ok false when the carry names a test the
// entry has no row for (the entry then keeps no carry).
func testFlags(tests map[string]*breaker.CarryTest, row map[string]int, n int) ([]byte, bool) {
	flags := []byte(strings.Repeat("-", n))
	for name, t := range tests {
		i, ok := row[name]
		if !ok {
			return nil, false
		}
		v := int(t.Flip) * 8
		if t.Passed {
			v |= flagPassed
		}
		if t.PassedAfterFail {
			v |= flagPassedAfterFail
		}
		if t.Flaky {
			v |= flagFlaky
		}
		flags[i] = flagChars[v]
	}
	return flags, true
}

// wireEdge is the edge as the entry keeps it: the fold's (given), else
// noEdge when no folded head was on the branch, else the carry's edge
// when it is not its newest push.
func wireEdge(given, edge, last string) string {
	switch {
	case given != "":
		return given
	case edge == "" && last != "":
		return noEdge
	case edge != last:
		return edge
	}
	return ""
}

// run reads the whole line.
func (e *Entry) setCarry() {
	e.Carry, e.PassedBefore = nil, nil
	row := make(map[string]int, len(e.Tests))
	for i, t := range e.Tests {
		row[t.FullName()] = i
	}
	for _, n := range e.KnownBeforeNames {
		if i, ok := row[n]; ok && e.Tests[i].Status.Failed() {
			e.PassedBefore = append(e.PassedBefore, i)
		}
	}
	slices.Sort(e.PassedBefore)
	c := e.FoldCarry
	if c == nil || c.Carry == nil {
		return
	}
	flags, ok := testFlags(c.Carry.Tests, row, len(e.Tests))
	if !ok {
		return
	}
	b := c.Carry
	attempts, ok := wireAttempts(b.Attempts)
	if !ok {
		return
	}
	attemptRows := attempts.byRows(e.Tests)
	bmad, ok := wireBMAD(b.BMAD, row, len(e.Tests))
	if !ok {
		return
	}
	liza, ok := wireLiza(b.Liza, row, e.Tests)
	if !ok {
		return
	}
	after, limit := c.After, c.Limit
	if after == breaker.Window-1 {
		after = 0
	}
	if limit == breaker.DefaultPolicy().NoProgressLimit {
		limit = 0
	}
	w := &Carry{Others: b.Others, After: after, Pushes: b.Pushes, Prior: b.Prior, Reset: resetPrefix(b.Reset), Failed: b.Failed,
		Streak: b.Streak, ResultsStreak: b.ResultsStreak, Extra: b.Extra, NoProgress: b.NoProgress,
		NoResults: b.NoResults, MinFailing: b.MinFailing, Floor: b.Floor,
		Tests: string(flags), Limit: limit, Base: c.Base, Read: c.Read, OnTrip: c.OnTrip, Attempts: attempts, Edge: c.Edge, BMAD: bmad, PRP: wirePRP(b.PRP), Liza: liza, AttemptRows: attemptRows}
	if b.Reset != "" && (b.ResetBy.CommentID > 0 || b.ResetBy.Author != "") {
		w.ResetBy = &CarryResetBy{CommentID: b.ResetBy.CommentID, Author: b.ResetBy.Author}
	}
	w.Edge = wireEdge(w.Edge, b.Edge, b.Last)
	if b.Recorded != nil {
		w.Recorded = b.Recorded.TripReason
	}
	if b.Verdicts {
		open := b.Open
		w.Open = &open
	}
	e.Carry = w
}

// wireAttempts is a as an entry keeps it (nil for no attempt); ok false
// when it names more than a carry keeps.
func wireAttempts(a breaker.AttemptFold) (*CarryAttempts, bool) {
	if len(a.PerTest) > maxCarriedNames || carriedBytes(a.PerTest, a.Test) > maxCarriedBytes {
		return nil, false
	}
	w := &CarryAttempts{Counted: a.Counted, Prior: a.Prior, Failed: a.Failed, PerTest: a.PerTest, Trip: a.Trip, Test: a.Test, Count: a.Count}
	if w.Counted == 0 && w.Prior == 0 && w.Failed == 0 && len(w.PerTest) == 0 && w.Trip == "" {
		return nil, true
	}
	return w, true
}

// byRows moves the per-test counts of a (nil: none) whose name is the
// name of exactly one of the rows, and at most 35, into one character a
// row (Carry.AttemptRows; "" when none moves): 20 names of 15 bytes are
// 400 bytes of an entry's 2 KB, 20 characters here.
func (a *CarryAttempts) byRows(tests []Test) string {
	if a == nil || len(a.PerTest) == 0 {
		return ""
	}
	row := make(map[string]int, len(tests))
	for i, t := range tests {
		if _, dup := row[t.Name]; dup {
			row[t.Name] = -1
			continue
		}
		row[t.Name] = i
	}
	flags := []byte(strings.Repeat("-", len(tests)))
	rest := map[string]int{}
	moved := false
	for name, n := range a.PerTest {
		if i, ok := row[name]; ok && i >= 0 && n >= 1 && n <= 35 {
			flags[i] = strconv.FormatInt(int64(n), 36)[0]
			moved = true
			continue
		}
		rest[name] = n
	}
	if !moved {
		return ""
	}
	a.PerTest = rest
	if len(rest) == 0 {
		a.PerTest = nil
	}
	return string(flags)
}

// wireBMAD is f as an entry keeps it, its not-passing tests by the
// entry's rows (row: full name → row; n rows); ok false when one is not a
// row of the entry, or its status has no character.
func wireBMAD(f *breaker.BMADFold, row map[string]int, n int) (*CarryBMAD, bool) {
	if f == nil {
		return nil, true
	}
	flags := []byte(strings.Repeat("-", n))
	for name, st := range f.NotPassing {
		i, ok := row[name]
		ch, known := bmadStatus[st]
		if !ok || !known {
			return nil, false
		}
		flags[i] = ch
	}
	return &CarryBMAD{Threshold: f.Threshold, Sessions: f.Sessions, Succeeded: f.Succeeded, Failed: f.Failed,
		Consecutive: f.ConsecutiveFailures, Triggered: f.Triggered, PrevFailed: f.PrevFailed, PrevTotal: f.PrevTotal,
		NotPassing: string(flags)}, true
}

// NewestEntries is After: how many of the line's newest entries the carry
// leaves out.
func (w *Carry) NewestEntries() int {
	if w.After == 0 {
		return breaker.Window - 1
	}
	return w.After
}

// NoProgressLimit is the no-progress limit the carry was folded with.
func (w *Carry) NoProgressLimit() int {
	if w.Limit == 0 {
		return breaker.DefaultPolicy().NoProgressLimit
	}
	return w.Limit
}

// resetPrefixLen is how much of a reset's head a carry keeps: 64 bits.
const resetPrefixLen = 16

func resetPrefix(head string) string {
	if len(head) > resetPrefixLen {
		return strings.ToLower(head[:resetPrefixLen])
	}
	return strings.ToLower(head)
}

// FoldHint is what the writer gives Encode for the entry's carry.
type FoldHint struct {
	Carry  *breaker.Carry
	After  int    // the entries after the carry, this one included
	Limit  int    // the no-progress limit
	Base   string // Digest of the base's failing tests
	Read   int64  // the newest check run id among the entries read
	OnTrip bool   // Carry.OnTrip
	// Edge is Carry.Edge as a decoded entry has it, written again as it
	// is ("" for a new entry: from Carry).
	Edge string
}

// Fold is the entry's carry as the engine takes it, with the tests named
// by the entry's rows and edge the head of its newest push (the entry's at
// Seq-After; "" when it folded none); nil when the entry keeps none. Its
// Reset is the prefix the entry keeps: ExpandReset finds the commit.
func (e Entry) Fold(edge string) *breaker.Carry {
	w := e.Carry
	if w == nil {
		return nil
	}
	c := breaker.NewCarry()
	c.Slice, c.Others, c.Pushes, c.Prior, c.Reset, c.Failed, c.Last, c.Edge = e.Slice, w.Others, w.Pushes, w.Prior, w.Reset, w.Failed, edge, edge
	switch w.Edge {
	case "":
	case noEdge:
		c.Edge = ""
	default:
		c.Edge = w.Edge
	}
	if r := w.ResetBy; r != nil {
		c.ResetBy = breaker.ResetBy{CommentID: r.CommentID, Author: r.Author}
	}
	if p := w.PRP; p != nil {
		c.PRP = p.fold()
	}
	if l := w.Liza; l != nil {
		c.Liza = l.fold(e.Tests)
	}
	if b := w.BMAD; b != nil {
		f := &breaker.BMADFold{Threshold: b.Threshold, Sessions: b.Sessions, Succeeded: b.Succeeded, Failed: b.Failed,
			ConsecutiveFailures: b.Consecutive, Triggered: b.Triggered, PrevFailed: b.PrevFailed, PrevTotal: b.PrevTotal}
		f.NotPassing = map[string]breaker.TestStatus{}
		for i := 0; i < len(b.NotPassing) && i < len(e.Tests); i++ {
			for st, ch := range bmadStatus {
				if b.NotPassing[i] == ch {
					f.NotPassing[e.Tests[i].FullName()] = st
				}
			}
		}
		c.BMAD = f
	}
	if a := w.Attempts; a != nil {
		c.Attempts = breaker.AttemptFold{Counted: a.Counted, Prior: a.Prior, Failed: a.Failed, PerTest: maps.Clone(a.PerTest), Trip: a.Trip, Test: a.Test, Count: a.Count}
		for i := 0; i < len(w.AttemptRows) && i < len(e.Tests); i++ {
			if n, err := strconv.ParseInt(w.AttemptRows[i:i+1], 36, 0); err == nil && n > 0 {
				if c.Attempts.PerTest == nil {
					c.Attempts.PerTest = map[string]int{}
				}
				c.Attempts.PerTest[e.Tests[i].Name] = int(n)
			}
		}
	}
	c.Streak, c.ResultsStreak, c.Extra, c.NoProgress, c.NoResults, c.HadResults = w.Streak, w.ResultsStreak, w.Extra, w.NoProgress, w.NoResults, w.MinFailing >= 0
	c.MinFailing, c.Floor = w.MinFailing, w.Floor
	if w.Recorded != "" {
		c.Recorded = &breaker.Verdict{State: breaker.StateOpen, TripReason: w.Recorded}
	}
	if w.Open != nil {
		c.Verdicts, c.Open = true, *w.Open
	}
	for i := 0; i < len(w.Tests) && i < len(e.Tests); i++ {
		v := strings.IndexByte(flagChars, w.Tests[i])
		if v < 0 {
			continue
		}
		c.Tests[e.Tests[i].FullName()] = &breaker.CarryTest{Failed: true, Passed: v&flagPassed != 0,
			PassedAfterFail: v&flagPassedAfterFail != 0, Flaky: v&flagFlaky != 0, Flip: breaker.FlipState(v / 8)}
	}
	return c
}

// ExpandReset replaces a carry's reset prefix with the one commit of
// commits it begins; left as it is when none or several do (the engine
// then finds no such commit on the branch, and the caller reads the whole
// line).
func ExpandReset(c *breaker.Carry, commits []breaker.Commit) {
	if c == nil || c.Reset == "" || len(c.Reset) != resetPrefixLen {
		return
	}
	found := ""
	for _, cm := range commits {
		if strings.HasPrefix(strings.ToLower(cm.SHA), c.Reset) {
			if found != "" {
				return
			}
			found = cm.SHA
		}
	}
	if found != "" {
		c.Reset = found
	}
}

// KnownBefore are the full names of the tests PassedBefore names.
func (e Entry) KnownBefore() []string {
	var out []string
	for _, i := range e.PassedBefore {
		if i >= 0 && i < len(e.Tests) {
			out = append(out, e.Tests[i].FullName())
		}
	}
	return out
}

// check validates the wire carry and PassedBefore against the entry.
func (e Entry) checkCarry() error {
	if err := e.checkPassedBefore(); err != nil {
		return err
	}
	if e.Carry == nil {
		return nil
	}
	for _, rule := range []func(Entry, *Carry) error{
		carryFlagsOneATest, carryCountsInBounds, carryIDsRead, carryAttemptsRead, carryResetByNamesTheReset, carryPoliciesRead, carryPushesAddUp,
	} {
		if err := rule(e, e.Carry); err != nil {
			return err
		}
	}
	return nil
}

// checkPassedBefore: passed_before names rows of the entry's tests, in
// order, each a test that fails here.
func (e Entry) checkPassedBefore() error {
	for k, i := range e.PassedBefore {
		if i < 0 || i >= len(e.Tests) || (k > 0 && i <= e.PassedBefore[k-1]) {
			return fmt.Errorf("passed_before %d is not a row of the entry's tests, in order", i)
		}
		if !e.Tests[i].Status.Failed() {
			return fmt.Errorf("passed_before %d names a test that does not fail here", i)
		}
	}
	return nil
}

// carryFlagsOneATest: one flag a row of the entry's tests, each known.
func carryFlagsOneATest(e Entry, w *Carry) error {
	if len(w.Tests) != len(e.Tests) {
		return fmt.Errorf("the carry flags %d tests, the entry holds %d", len(w.Tests), len(e.Tests))
	}
	for i := 0; i < len(w.Tests); i++ {
		if c := w.Tests[i]; c != '-' && strings.IndexByte(flagChars, c) < 0 {
			return fmt.Errorf("the carry's flag %q of test %d is not one of %q", c, i, "-"+flagChars)
		}
	}
	return nil
}

// carryCountsInBounds: every count within 0..MaxCarryCount (min_failing
// from -1).
func carryCountsInBounds(_ Entry, w *Carry) error {
	for _, n := range []int{w.After, w.Pushes, w.Prior, w.Failed, w.Streak, w.ResultsStreak, w.Extra, w.Floor, w.Limit} {
		if n < 0 || n > MaxCarryCount {
			return fmt.Errorf("a carry count %d is outside 0..%d", n, MaxCarryCount)
		}
	}
	if w.MinFailing < -1 || w.MinFailing > MaxCarryCount {
		return fmt.Errorf("the carry's min_failing %d is outside -1..%d", w.MinFailing, MaxCarryCount)
	}
	return nil
}

// carryIDsRead: the reset a prefix of a commit id, read a check run id,
// the edge a commit id (or noEdge).
func carryIDsRead(_ Entry, w *Carry) error {
	if w.Reset != "" {
		if _, err := hex.DecodeString(w.Reset); err != nil || len(w.Reset) != resetPrefixLen {
			return fmt.Errorf("the carry's reset %q is not %d hex digits of a commit id", w.Reset, resetPrefixLen)
		}
	}
	if w.Read < 0 {
		return fmt.Errorf("the carry's read %d is not a check run id", w.Read)
	}
	if w.Edge != "" && w.Edge != noEdge && !validSHA(w.Edge) {
		return fmt.Errorf("the carry's edge %q is not a commit id or %q", w.Edge, noEdge)
	}
	return nil
}

// carryAttemptsRead: the attempts' counts read, and attempt_rows flags
// one a test, each '-' or a count 1..failed in base 36.
func carryAttemptsRead(e Entry, w *Carry) error {
	if err := w.Attempts.check(); err != nil {
		return err
	}
	r := w.AttemptRows
	if r == "" {
		return nil
	}
	if w.Attempts == nil || len(r) != len(e.Tests) {
		return fmt.Errorf("the carry's attempt_rows flags %d tests, the entry holds %d (or there are no attempts)", len(r), len(e.Tests))
	}
	for i := 0; i < len(r); i++ {
		n, err := strconv.ParseInt(r[i:i+1], 36, 0)
		if r[i] != '-' && (err != nil || n < 1 || int(n) > w.Attempts.Failed || r[i] >= 'A' && r[i] <= 'Z') {
			return fmt.Errorf("the carry's attempt_rows flag %q of test %d is not '-' or a count 1..failed in base 36", r[i], i)
		}
	}
	return nil
}

// carryResetByNamesTheReset: reset_by only beside a reset, with a comment
// id and a login of at most 100 bytes.
func carryResetByNamesTheReset(_ Entry, w *Carry) error {
	if r := w.ResetBy; r != nil && (w.Reset == "" || r.CommentID < 0 || len(r.Author) > 100) {
		return fmt.Errorf("the carry's reset_by [%d, %.40q] names no reset, a comment id below 0 or a login over 100 bytes", r.CommentID, r.Author)
	}
	return nil
}

// carryPoliciesRead: BMAD's, PRP's and Liza's states read.
func carryPoliciesRead(e Entry, w *Carry) error {
	if err := w.BMAD.check(len(e.Tests)); err != nil {
		return err
	}
	if err := w.PRP.check(); err != nil {
		return err
	}
	return w.Liza.check(e.Tests)
}

// carryPushesAddUp: no more prior or failed pushes than it folded.
func carryPushesAddUp(_ Entry, w *Carry) error {
	if w.Prior > w.Pushes || w.Failed > w.Pushes {
		return errors.New("the carry counts more prior or failed pushes than it folded")
	}
	return nil
}

// check validates the attempts of a carry.
func (a *CarryAttempts) check() error {
	if a == nil {
		return nil
	}
	for _, n := range []int{a.Counted, a.Prior, a.Failed, a.Count} {
		if n < 0 || n > MaxCarryCount {
			return fmt.Errorf("a carry's attempt count %d is outside 0..%d", n, MaxCarryCount)
		}
	}
	if len(a.PerTest) > maxCarriedNames || carriedBytes(a.PerTest, a.Test) > maxCarriedBytes {
		return fmt.Errorf("the carry's attempts name %d tests in %d bytes, more than %d or %d", len(a.PerTest), carriedBytes(a.PerTest, a.Test), maxCarriedNames, maxCarriedBytes)
	}
	for n, c := range a.PerTest {
		if n == "" || c < 1 || c > a.Failed {
			return fmt.Errorf("the carry's per_test count %d of %.40q is outside 1..failed (%d), or its name is empty", c, n, a.Failed)
		}
	}
	if a.Failed > a.Counted {
		return errors.New("the carry counts more failed attempts than it folded")
	}
	switch a.Trip {
	case breaker.TripNone, breaker.TripSliceCeiling:
		if a.Test != "" || a.Count != 0 {
			return fmt.Errorf("the carry's attempt trip %q names a test", a.Trip)
		}
	case breaker.TripPerTest:
		if a.Test == "" || a.Count < 1 {
			return errors.New("the carry's per_test attempt trip names no test or no count")
		}
	default:
		return fmt.Errorf("the carry's attempt trip %q is not per_test or slice_ceiling", a.Trip)
	}
	return nil
}

// carriedBytes is the length of the names a carry's attempts keep.
func carriedBytes(perTest map[string]int, test string) int {
	n := len(test)
	for name := range perTest {
		n += len(name)
	}
	return n
}

// check validates the bmad fold of a carry against the entry's n rows.
func (b *CarryBMAD) check(n int) error {
	if b == nil {
		return nil
	}
	for _, v := range []int{b.Threshold, b.Sessions, b.Succeeded, b.Failed, b.Consecutive, b.PrevFailed, b.PrevTotal} {
		if v < 0 || v > MaxCarryCount {
			return fmt.Errorf("a count %d of the carry's bmad fold is outside 0..%d", v, MaxCarryCount)
		}
	}
	if b.Threshold < breaker.MinThreshold || b.Threshold > breaker.MaxThreshold {
		return fmt.Errorf("the carry's bmad threshold %d is outside %d..%d", b.Threshold, breaker.MinThreshold, breaker.MaxThreshold)
	}
	if b.Succeeded+b.Failed != b.Sessions || b.Consecutive > b.Failed {
		return fmt.Errorf("the carry's bmad fold counts %d sessions, %d succeeded and %d failed (%d in a row)", b.Sessions, b.Succeeded, b.Failed, b.Consecutive)
	}
	if len(b.NotPassing) != n {
		return fmt.Errorf("the carry's bmad fold flags %d tests, the entry holds %d", len(b.NotPassing), n)
	}
	for i := 0; i < len(b.NotPassing); i++ {
		if c := b.NotPassing[i]; c != '-' && !strings.ContainsRune("fesa", rune(c)) {
			return fmt.Errorf("the carry's bmad flag %q of test %d is not one of %q", c, i, "-fesa")
		}
	}
	return nil
}
