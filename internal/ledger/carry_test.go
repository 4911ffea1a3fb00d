package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/greenlight-ci/breaker/internal/breaker"
)

// carried is an entry whose run keeps a carry: two tests folded, one
// failing for the first time after running before.
func carried() Entry {
	e := entry()
	e.Tests = append(e.Tests, Test{Name: "pkg.TestC", Status: breaker.StatusFail, Fingerprint: "0123456789ab"})
	c := breaker.NewCarry()
	c.Slice, c.Pushes, c.Failed, c.Edge, c.Streak, c.Extra, c.NoProgress, c.HadResults, c.MinFailing, c.Floor =
		"S-3", 40, 39, strings.Repeat("cd", 20), 39, 39, true, true, 1, 39
	c.Last = c.Edge
	c.BMAD = &breaker.BMADFold{Threshold: 5, Sessions: 30, Succeeded: 12, Failed: 18, ConsecutiveFailures: 4,
		NotPassing: map[string]breaker.TestStatus{"pkg.TestC": breaker.StatusFail}, PrevFailed: 1, PrevTotal: 3}
	at := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	c.Liza = &breaker.LizaFold{Tests: map[string]*breaker.LizaTest{
		"pkg.TestB": {Fails: 5, Pattern: "fingerprint " + Fingerprint("want 1, got 2", ""), Last: at}, // the row's: left out
		"pkg.TestC": {Fails: 3, Pattern: "fingerprint 00ff00ff", Last: at.Add(-time.Hour)},            // another, earlier
		"pkg.TestA": {Fails: 1, Last: at},                                                             // no pattern
	}}
	opened := time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)
	c.PRP = &breaker.PRPFold{Phase: "GREEN", State: breaker.StateOpen, Iterations: 9, NoProgressCount: 4, SameErrorCount: 3,
		LastErrorHash: "0123456789abcdef", Prev: breaker.PushCounts{Total: 3, Passed: 2, Failed: 1}, PassingChanged: true,
		OpenedAt: &opened, OpenReason: "Same error repeated 3 times"}
	c.Attempts = breaker.AttemptFold{Counted: 9, Prior: 4, Failed: 6, PerTest: map[string]int{"TestLogin": 2, "TestCart/empty": 1},
		Trip: breaker.TripPerTest, Test: "TestLogin", Count: 3}
	c.Recorded = &breaker.Verdict{State: breaker.StateOpen, TripReason: breaker.TripNoProgress}
	c.Verdicts, c.Open = true, true
	c.Prior, c.Reset = 12, strings.Repeat("ef", 20)
	c.ResetBy = breaker.ResetBy{Author: "alice", CommentID: 4242}
	c.Tests["pkg.TestB"] = &breaker.CarryTest{Failed: true, Flip: breaker.FlipFailed}
	c.Tests["pkg.TestA"] = &breaker.CarryTest{Failed: true, Passed: true, PassedAfterFail: true, Flaky: true, Flip: breaker.FlipFlips}
	e.FoldCarry = &FoldHint{Carry: c, After: 15, Limit: 3, Base: Digest([]string{"pkg.TestZ"})}
	e.KnownBeforeNames = []string{"pkg.TestC"}
	e.Names = Digest([]string{"pkg.TestA", "pkg.TestB", "pkg.TestC"})
	return e
}

// The carry an entry keeps reads back as the engine's, inside the MAC, and
// survives being written again.
func TestCarry_RoundTripInsideTheMAC(t *testing.T) {
	t.Parallel()
	in := carried()
	text, signed := Encode(in, key)
	got, err := Decode(text)
	if err != nil {
		t.Fatal(err)
	}
	if !Verify(got, key) {
		t.Fatal("an entry with a carry does not verify")
	}
	fold := got.Fold(strings.Repeat("cd", 20))
	if fold.Reset != strings.Repeat("ef", 8) {
		t.Errorf("the carry keeps the reset as %q; want its first 16 hex digits", fold.Reset)
	}
	ExpandReset(fold, []breaker.Commit{{SHA: strings.Repeat("ab", 20)}, {SHA: strings.Repeat("ef", 20)}})
	if diff := cmp.Diff(in.FoldCarry.Carry, fold); diff != "" {
		t.Errorf("the carry read back differs (-written +read):\n%s", diff)
	}
	if w := got.Carry; w.NewestEntries() != 15 || w.NoProgressLimit() != 3 || w.After != 0 || w.Limit != 0 || w.Base != in.FoldCarry.Base {
		t.Errorf("after %d (%d), limit %d (%d), base %q; want 15 and 3, the defaults left out, and %q", w.NewestEntries(), w.After, w.NoProgressLimit(), w.Limit, w.Base, in.FoldCarry.Base)
	}
	if kb := got.KnownBefore(); len(kb) != 1 || kb[0] != "pkg.TestC" {
		t.Errorf("passed before %v, want [pkg.TestC]", kb)
	}
	again, _ := Encode(got, nil)
	back, err := Decode(again)
	if err != nil || !cmp.Equal(back.Fold(""), got.Fold("")) || !cmp.Equal(back.KnownBefore(), got.KnownBefore()) {
		t.Errorf("written again, the carry changed: %v", err)
	}
	for name, edit := range map[string]func(*Entry){
		"streak": func(e *Entry) { c := *e.Carry; c.Streak = 0; e.Carry = &c },
		"flags":  func(e *Entry) { c := *e.Carry; c.Tests = strings.Repeat("-", len(c.Tests)); e.Carry = &c },
		"first":  func(e *Entry) { e.PassedBefore = nil },
		"names":  func(e *Entry) { e.Names = "" },
		"attempts": func(e *Entry) {
			c, a := *e.Carry, *e.Carry.Attempts
			a.PerTest = map[string]int{"TestLogin": 1, "TestCart/empty": 1}
			c.Attempts = &a
			e.Carry = &c
		},
		"edge": func(e *Entry) { c := *e.Carry; c.Edge = strings.Repeat("ab", 20); e.Carry = &c },
		"bmad": func(e *Entry) { c, b := *e.Carry, *e.Carry.BMAD; b.Consecutive = 0; c.BMAD = &b; e.Carry = &c },
		"prp": func(e *Entry) {
			c, p := *e.Carry, *e.Carry.PRP
			p.State = breaker.StateClosed
			c.PRP = &p
			e.Carry = &c
		},
		"liza": func(e *Entry) {
			c, l := *e.Carry, *e.Carry.Liza
			l.Tests = append([]CarryLizaTest(nil), l.Tests...)
			l.Tests[0].Fails = 9
			c.Liza = &l
			e.Carry = &c
		},
	} {
		e := signed
		edit(&e)
		if Verify(e, key) {
			t.Errorf("%s: an entry whose carry was edited verifies", name)
		}
	}
}

// The newest commit a carry's pushes brought is kept only when it is not
// the head of the newest of them, which its reader knows: another commit
// as it is, none as "none".
func TestCarry_EdgeKeptWhenNotTheNewestHead(t *testing.T) {
	t.Parallel()
	newest := strings.Repeat("cd", 20)
	for _, edge := range []string{newest, strings.Repeat("ab", 20), ""} {
		in := carried()
		in.FoldCarry.Carry.Edge = edge
		text, _ := Encode(in, key)
		got, err := Decode(text)
		if err != nil {
			t.Fatal(err)
		}
		if fold := got.Fold(newest); fold.Edge != edge || fold.Last != newest {
			t.Errorf("edge %q read back as %q (last %q)", edge, fold.Edge, fold.Last)
		}
		if kept := strings.Contains(text, `"edge"`); kept != (edge != newest) {
			t.Errorf("edge %q: kept in the entry %v", edge, kept)
		}
		again, _ := Encode(got, key)
		if back, err := Decode(again); err != nil || back.Fold(newest).Edge != edge {
			t.Errorf("edge %q: written again, it changed (%v)", edge, err)
		}
	}
}

// A prp open reason the breaker wrote is kept as a code and its count,
// and reads back whole; any other text is kept as it is.
func TestCarry_PRPReasonsKeptShort(t *testing.T) {
	t.Parallel()
	for reason, short := range map[string]string{
		"No progress for 3 iterations":  "np3",
		"Same error repeated 12 times":  "se12",
		"No progress for 3 iterations!": "No progress for 3 iterations!",
		"np3":                           "np3",
		"":                              "",
	} {
		if got := shortReason(reason); got != short {
			t.Errorf("shortReason(%q) = %q, want %q", reason, got, short)
		}
		if short != reason && longReason(short) != reason {
			t.Errorf("longReason(%q) = %q, want %q", short, longReason(short), reason)
		}
	}
	if longReason("np03") != "np03" || longReason("se") != "se" {
		t.Error("a code that shortReason does not write was read as one")
	}
}

// A fold whose attempts name more tests, or longer names, than a carry
// keeps leaves no carry.
func TestCarry_NoneWhenAttemptsNameTooManyTests(t *testing.T) {
	t.Parallel()
	e := carried()
	a := &e.FoldCarry.Carry.Attempts
	for i := range maxCarriedNames + 1 {
		a.PerTest[fmt.Sprintf("Test%d", i)] = 1
	}
	if _, written := Encode(e, key); written.Carry != nil {
		t.Errorf("the carry holds %d names", len(a.PerTest))
	}
	e = carried()
	e.FoldCarry.Carry.Attempts.PerTest["TestLogin"+strings.Repeat("x", maxCarriedBytes)] = 1
	if _, written := Encode(e, key); written.Carry != nil {
		t.Error("the carry holds names longer than the bound")
	}
}

// A carried test the entry had to cut leaves no carry (the next run reads
// the whole line), never a carry that forgets a test; so does a test the
// bmad fold compares the next session with.
func TestCarry_NoneWhenATestIsCut(t *testing.T) {
	t.Parallel()
	e := carried()
	e.FoldCarry.Carry.Tests["pkg.Gone"] = &breaker.CarryTest{Failed: true}
	_, written := Encode(e, key)
	if written.Carry != nil {
		t.Errorf("the carry holds a test the entry does not: %+v", written.Carry)
	}
	e = carried()
	e.FoldCarry.Carry.BMAD.NotPassing["pkg.Gone"] = breaker.StatusSkip
	if _, written := Encode(e, key); written.Carry != nil {
		t.Errorf("the carry's bmad fold holds a test the entry does not: %+v", written.Carry.BMAD)
	}
}

func TestCarry_DecodeRefuses(t *testing.T) {
	t.Parallel()
	good, _ := Encode(carried(), nil)
	for name, tt := range map[string]struct{ from, to, want string }{
		"flags short": {`"tests":"`, `"tests":"-`, "the carry flags"},
		"flag char":   {`-","base"`, `z","base"`, "not one of"},
		"negative":    {`"pushes":40`, `"pushes":-4`, "outside"},
		"more failed": {`"failed":39`, `"failed":90`, "more prior or failed"},
		"first pass":  {`"passed_before":[`, `"passed_before":[0,`, "does not fail here"},
		"first range": {`"passed_before":[`, `"passed_before":[7,`, "not a row"},
		"min failing": {`"min_failing":1`, `"min_failing":-2`, "min_failing"},
		"edge":        {`"base"`, `"edge":"HEAD","base"`, "not a commit id"},
		"per test":    {`"TestLogin":2`, `"TestLogin":0`, "outside 1..failed"},
		"trip":        {`},"per_test"`, `},"slice"`, "not per_test"},
		"trip test":   {`"per_test","TestLogin"`, `"per_test",""`, "names no test"},
		"attempts":    {`"attempts":[9,`, `"attempts":[2,`, "more failed attempts"},
		"shape":       {`"attempts":[9,`, `"attempts":[[9],`, "value 1"},
		"bmad counts": {`"bmad":[5,30,12,18,`, `"bmad":[5,30,12,17,`, "counts 30 sessions"},
		"bmad flags":  {`"bmad":[5,30,12,18,4,false,1,3,"`, `"bmad":[5,30,12,18,4,false,1,3,"x`, "flags"},
		"bmad shape":  {`"bmad":[5,`, `"bmad":[`, "not 8 values"},
		"prp phase":   {`"prp":["GREEN"`, `"prp":["BLUE"`, "not one of RED"},
		"prp state":   {`"OPEN",9,`, `"CLOSED",9,`, "opened at"},
		"prp counts":  {`"OPEN",9,4,`, `"OPEN",2,4,`, "counts 2 iterations"},
		"prp hash":    {`"0123456789abcdef"`, `"0123"`, "16 hex digits"},
		"prp time":    {`"2026-11-26T05:00:00Z"`, `"yesterday"`, "RFC 3339"},
		"prp shape":   {`"prp":["GREEN",`, `"prp":[`, "not 11 values"},
		"liza at":     {`"liza":["2026-11-26T04:00:00Z"`, `"liza":["soon"`, "liza at"},
		"liza rows":   {`,5,"+=+"`, `,5,"+==+"`, "flags 4 tests"},
		"liza flag":   {`,5,"+=+"`, `,5,"+=*"`, "not one of"},
		"liza listed": {`[[0,1,"-"],`, `[[1,1,"-"],`, "not the row its flags list"},
		"liza common": {`,5,"+=+"`, `,0,"+=+"`, "liza fails 0"},
		"liza fails":  {`[0,1,"-"]`, `[0,0,"-"]`, "outside 1.."},
		"liza fp":     {`"00ff00ff"`, `"zz"`, "not hex digits"},
		"reset by":    {`"reset_by":[4242,`, `"reset_by":[-1,`, "comment id below 0"},
		"reset by 2":  {`"reset_by":[4242,"alice"]`, `"reset_by":[4242]`, "not 1 values"},
		"liza test":   {`[0,1,"-"]`, `[0]`, "not 1 values"},
		"length":      {`,"per_test","TestLogin",3]`, `,"per_test","TestLogin"]`, "not 6 values"},
	} {
		text := strings.Replace(good, tt.from, tt.to, 1)
		if text == good {
			t.Fatalf("%s: %q is not in the entry", name, tt.from)
		}
		if _, err := Decode(text); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Decode error = %v, want it to contain %q", name, err, tt.want)
		}
	}
}

// The digest of a set of names does not depend on their order or
// repeats, and tells two sets apart.
func TestDigest_OfTheSetOfNames(t *testing.T) {
	t.Parallel()
	a := Digest([]string{"b", "a", "c", "a"})
	if a != Digest([]string{"a", "b", "c"}) || len(a) != 16 {
		t.Errorf("digest %q depends on order or repeats", a)
	}
	if a == Digest([]string{"a", "b"}) || a == Digest([]string{"a", "bc"}) || Digest(nil) != "" {
		t.Error("the digest does not tell sets apart")
	}
}

// The digest is the first 8 bytes of SHA-256 over the sorted names, each
// once and ended by a NUL, however the names fall across the hash's
// writes: a suite of 5,000 names, one of them longer than a write.
func TestDigest_IsSHA256OfTheSortedNames(t *testing.T) {
	t.Parallel()
	var names []string
	for i := range 5000 {
		names = append(names, fmt.Sprintf("pkg.Test%04d/%s", (i*7919)%5000, strings.Repeat("x", i%97)))
	}
	names = append(names, strings.Repeat("long", 10000), names[3])
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	var all []byte
	for i, n := range sorted {
		if i == 0 || n != sorted[i-1] {
			all = append(append(all, n...), 0)
		}
	}
	sum := sha256.Sum256(all)
	if got, want := Digest(names), hex.EncodeToString(sum[:8]); got != want {
		t.Errorf("Digest = %s, want %s", got, want)
	}
}

// BenchmarkDigest_20000 is the names digest of a suite of 20,000 tests,
// listed in order, as every run writes it.
func BenchmarkDigest_20000(b *testing.B) {
	names := make([]string, 20000)
	for i := range names {
		names[i] = fmt.Sprintf("github.com/acme/shop/internal/cart.TestCart_Checkout/%05d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		Digest(names)
	}
}

// A per-test count whose name is the name of one of the entry's rows is
// kept as one character of that row, and reads back as the name's.
func TestCarry_AttemptCountsByRows(t *testing.T) {
	t.Parallel()
	in := carried()
	in.FoldCarry.Carry.Attempts.PerTest = map[string]int{"pkg.TestB": 2, "pkg.TestC": 1, "TestLogin": 2}
	text, _ := Encode(in, key)
	if !strings.Contains(text, `"attempt_rows":"-21"`) || strings.Contains(text, `"pkg.TestB":2`) {
		t.Errorf("the counts of rows' names are not kept by rows:\n%s", text)
	}
	got, err := Decode(text)
	if err != nil || !Verify(got, key) {
		t.Fatalf("decode: %v, verified %v", err, Verify(got, key))
	}
	if diff := cmp.Diff(in.FoldCarry.Carry.Attempts.PerTest, got.Fold("").Attempts.PerTest); diff != "" {
		t.Errorf("the per-test counts read back differ (-written +read):\n%s", diff)
	}
	bad := strings.Replace(text, `"attempt_rows":"-21"`, `"attempt_rows":"-z1"`, 1)
	if _, err := Decode(bad); err == nil || !strings.Contains(err.Error(), "attempt_rows") {
		t.Errorf("a count above the failed attempts reads: %v", err)
	}
}
