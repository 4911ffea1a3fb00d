package ledger

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

var key = []byte("a ledger key of the test")

func entry() Entry {
	return Entry{
		Head: strings.Repeat("ab", 20), ObservedAt: time.Date(2026, 2, 18, 9, 30, 0, 5, time.FixedZone("x", 3600)),
		RunID: 42, Event: "push", PR: 7, Slice: "S-3",
		Counts: Counts{Total: 3, Passed: 1, Failed: 2},
		Tests: []Test{
			{Name: "pkg.TestB", Status: breaker.StatusFail, Fingerprint: Fingerprint("want 1, got 2", "")},
			{Name: "pkg.TestA", Status: breaker.StatusAbsent},
		},
	}
}

func TestEncodeDecode_RoundTripSignedAndVerified(t *testing.T) {
	t.Parallel()
	text, signed := Encode(entry(), key)
	text = "## Greenlight breaker\n\nsome prose\n\n" + text + "\ntrailing words\n"
	got, err := Decode(text)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(signed, got); diff != "" {
		t.Errorf("Decode(Encode(e)) (-want +got):\n%s", diff)
	}
	if !Verify(got, key) {
		t.Errorf("the entry does not verify with its key")
	}
	if Verify(got, []byte("another key")) {
		t.Errorf("the entry verifies with another key")
	}
	if got.Tests[0].Name != "pkg.TestA" || !got.ObservedAt.Equal(time.Date(2026, 2, 18, 8, 30, 0, 0, time.UTC)) {
		t.Errorf("not canonical: tests %v, observed_at %v", got.Tests, got.ObservedAt)
	}
}

// Any change to a signed entry's evidence breaks its MAC.
func TestVerify_DetectsEveryEdit(t *testing.T) {
	t.Parallel()
	_, signed := Encode(entry(), key)
	edits := map[string]func(*Entry){
		"status":  func(e *Entry) { e.Tests[1].Status = breaker.StatusPass },
		"dropped": func(e *Entry) { e.Tests = e.Tests[:1] },
		"head":    func(e *Entry) { e.Head = strings.Repeat("cd", 20) },
		"time":    func(e *Entry) { e.ObservedAt = e.ObservedAt.Add(time.Hour) },
		"slice":   func(e *Entry) { e.Slice = "S-4" },
		"infra":   func(e *Entry) { s := "flaky runner"; e.Infra = &s },
		"counts":  func(e *Entry) { e.Counts.Failed = 0 },
		"no mac":  func(e *Entry) { e.MAC = "" },
		"bad mac": func(e *Entry) { e.MAC = "zz" },
	}
	for name, edit := range edits {
		e := signed
		e.Tests = append([]Test(nil), signed.Tests...)
		edit(&e)
		if Verify(e, key) {
			t.Errorf("%s: an edited entry verifies", name)
		}
	}
}

// Trusted takes an entry as evidence when its MAC verifies under the key,
// and any entry when there is no key (the ledger is unsigned).
func TestTrusted(t *testing.T) {
	t.Parallel()
	_, signed := Encode(entry(), key)
	_, unsigned := Encode(entry(), nil)
	edited := signed
	edited.Slice = "S-4"
	tests := []struct {
		name string
		e    Entry
		key  []byte
		want bool
	}{
		{"signed, its key", signed, key, true},
		{"signed, edited", edited, key, false},
		{"unsigned, a key given", unsigned, key, false},
		{"unsigned, no key", unsigned, nil, true},
		{"edited, no key", edited, nil, true},
		{"unsigned, an empty key", unsigned, []byte{}, true},
	}
	for _, tt := range tests {
		if got := Trusted(tt.e, tt.key); got != tt.want {
			t.Errorf("%s: Trusted = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDecode_Errors(t *testing.T) {
	t.Parallel()
	good, _ := Encode(entry(), nil)
	tests := map[string]struct {
		text, want string
	}{
		"no block":      {"just a summary", "no ledger entry"},
		"unclosed":      {blockStart + "\n{}", "not closed"},
		"not json":      {blockStart + "\n{oops\n" + blockEnd, "ledger block:"},
		"unknown field": {strings.Replace(good, `"slice":`, `"extra":1,"slice":`, 1), "unknown field"},
		"other schema":  {strings.Replace(good, Schema, "greenlight-ledger/v9", 1), "schema"},
		"bad head":      {strings.Replace(good, strings.Repeat("ab", 20), "HEAD", 1), "not a commit id"},
		"bad status":    {strings.Replace(good, `","fail"`, `","green"`, 1), `status "green"`},
		"test object":   {strings.Replace(good, `["","pkg.TestB","fail",`, `[{"name":"pkg.TestB"},"fail",`, 1), ".tests of type string"},
		"short test":    {strings.Replace(good, `["","pkg.TestA","absent"]`, `["pkg.TestA"]`, 1), "not 1 strings"},
		"huge":          {strings.Repeat("x", maxDecode+1), "over the"},
	}
	for name, tt := range tests {
		if _, err := Decode(tt.text); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Decode error = %v, want it to contain %q", name, err, tt.want)
		}
	}
}

// An entry with 100,000 failing tests still fits a check run's text; what
// was cut is said, and the failing tests are kept before the others.
func TestEncode_FitsTheCheckRunText(t *testing.T) {
	t.Parallel()
	e := entry()
	e.Tests = nil
	for i := range 100_000 {
		st := breaker.StatusFail
		if i%2 == 0 {
			st = breaker.StatusAbsent
		}
		e.Tests = append(e.Tests, Test{Name: "pkg.TestNumber" + strings.Repeat("x", 20) + string(rune('a'+i%26)) + strconv.Itoa(i), Status: st})
	}
	text, kept := Encode(e, key)
	if len(text) > MaxText {
		t.Fatalf("encoded entry is %d characters, over %d", len(text), MaxText)
	}
	if kept.Cut == 0 || kept.Cut+len(kept.Tests) != 100_000 {
		t.Errorf("cut %d, kept %d: want the rest of 100,000 said as cut", kept.Cut, len(kept.Tests))
	}
	for _, tt := range kept.Tests {
		if tt.Status != breaker.StatusFail {
			t.Fatalf("kept %s (%s) before every failing test", tt.Name, tt.Status)
		}
	}
	got, err := Decode(text)
	if err != nil || !Verify(got, key) {
		t.Errorf("the cut entry: decode %v, verifies %v", err, Verify(got, key))
	}
}

func TestFingerprint_IgnoresNumbersAndAddresses(t *testing.T) {
	t.Parallel()
	a := Fingerprint("panic at 0xc000123456 line 42: want 409, got 500", "panic")
	b := Fingerprint("panic   at 0xc000ffff0000 line 77: want 409, got 500", "panic")
	c := Fingerprint("panic at 0xc000123456 line 42: want 409, got 500", "assert")
	d := Fingerprint("timeout after 30s", "panic")
	if a != b || a == c || a == d || len(a) != 8 {
		t.Errorf("fingerprints a=%s b=%s c=%s d=%s: want a==b, a!=c, a!=d, 8 hex digits", a, b, c, d)
	}
	if Fingerprint("", "") != "" {
		t.Errorf("no message and no type must have no fingerprint")
	}
}

func TestSort_OldestFirst(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	es := []Entry{{RunID: 3, ObservedAt: t0.Add(time.Hour)}, {RunID: 2, ObservedAt: t0}, {RunID: 1, ObservedAt: t0}}
	Sort(es)
	if es[0].RunID != 1 || es[1].RunID != 2 || es[2].RunID != 3 {
		t.Errorf("order %d %d %d, want 1 2 3", es[0].RunID, es[1].RunID, es[2].RunID)
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := Encode(entry(), key)
	f.Add(good)
	f.Add(blockStart + "\n{}\n" + blockEnd)
	large := entry()
	large.KnownNames = []string{"pkg.TestA", "pkg.TestB"}
	known, _ := Encode(large, key)
	f.Add(known)
	added := entry()
	added.Known = &Known{Added: []string{"pkg.TestA", "pkg.TestC"}}
	withAdded, _ := Encode(added, key)
	f.Add(withAdded)
	withCarry, _ := Encode(carried(), key)
	f.Add(withCarry)
	f.Add("no block")
	f.Fuzz(func(t *testing.T, text string) {
		e, err := Decode(text)
		if err != nil {
			return
		}
		again, _ := Encode(e, nil)
		if _, err := Decode(again); err != nil {
			t.Fatalf("a decoded entry does not survive re-encoding: %v", err)
		}
	})
}

// suite is n tests named as a large Go repository names them (a package
// path, a test, a subtest), every fifth failing.
func suite(n int) []Test {
	ts := make([]Test, 0, n)
	for i := range n {
		st := breaker.StatusPass
		if i%500 == 0 {
			st = breaker.StatusFail
		}
		ts = append(ts, Test{
			Suite:  "github.com/acme/platform/internal/service" + strconv.Itoa(i/200) + "/handlers",
			Name:   "TestHandler_" + strconv.Itoa(i/20) + "/case_" + strconv.Itoa(i%20) + "_returns_the_expected_status",
			Status: st,
		})
	}
	return ts
}

// The first entry of a line of work for a suite of 20,000 tests: its
// filter finds every test it was built from and few it was not, it fits
// the check run, and it verifies. A later entry of 20 failing tests is
// small.
func TestEncode_KnownFilterOfALargeSuite(t *testing.T) {
	t.Parallel()
	tests := suite(20_000)
	names := make([]string, len(tests))
	for i, tt := range tests {
		names[i] = tt.FullName()
	}
	e := entry()
	e.KnownNames = names
	text, kept := Encode(e, key)
	if len(text) > maxEntryBytes+200 || kept.Known == nil || kept.Known.Filter == "" {
		t.Fatalf("first entry: %d bytes, known %+v: want a filter within %d bytes", len(text), kept.Known, maxEntryBytes)
	}
	t.Logf("the first entry of a 20,000-test line is %d bytes", len(text))
	got, err := Decode(text)
	if err != nil || !Verify(got, key) {
		t.Fatalf("decode %v, verifies %v", err, err == nil && Verify(got, key))
	}
	f, err := ParseFilter(got.Known.Filter)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !f.Has(n) {
			t.Fatalf("the filter misses %s, which it was built from", n)
		}
	}
	false1 := 0
	for i := range 10_000 {
		if f.Has("github.com/acme/other.TestNever_" + strconv.Itoa(i)) {
			false1++
		}
	}
	if false1 > 300 { // ten bits a test: about 1%
		t.Errorf("%d of 10,000 names never added are found: want about 1%%", false1)
	}

	later := entry()
	later.Tests = nil
	for i := range 20 { // named as bench/actioncost names them
		later.Tests = append(later.Tests, Test{Suite: "cache/pkg" + strconv.Itoa(100+i), Name: "TestCache" + strconv.Itoa(10000+i),
			Status: breaker.StatusFail, Fingerprint: Fingerprint("got 1", "")})
	}
	later.Known = &Known{}
	text, _ = Encode(later, key)
	if len(text) > 2048 {
		t.Errorf("an entry of 20 failing tests is %d bytes, over 2 KB", len(text))
	}
	t.Logf("a later entry of 20 failing tests is %d bytes", len(text))
}

// A suite too large for ten bits a test gets a smaller filter (more false
// "known", never a miss) and every failing test still.
func TestEncode_KnownFilterShrinksNeverMisses(t *testing.T) {
	t.Parallel()
	tests := suite(200_000)
	names := make([]string, len(tests))
	e := entry()
	e.Tests = nil
	for i, tt := range tests {
		names[i] = tt.FullName()
		if i%2000 == 0 {
			e.Tests = append(e.Tests, tt)
		}
	}
	e.KnownNames = names
	text, kept := Encode(e, key)
	if len(text) > maxEntryBytes+200 || kept.Cut != 0 {
		t.Fatalf("%d bytes, cut %d: want every failure within the bound", len(text), kept.Cut)
	}
	got, err := Decode(text)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := ParseFilter(got.Known.Filter)
	for _, n := range names {
		if !f.Has(n) {
			t.Fatalf("the filter misses %s", n)
		}
	}
}

// Known is evidence like any other: an edit breaks the MAC, and what is
// malformed or too large is refused with the field named.
func TestDecode_KnownRefused(t *testing.T) {
	t.Parallel()
	e := entry()
	e.KnownNames = []string{"pkg.TestA", "pkg.TestB"}
	text, kept := Encode(e, key)
	other := NewFilter([]string{"pkg.TestA", "pkg.TestC"}, 1<<10)
	if got, err := Decode(strings.Replace(text, kept.Known.Filter, other, 1)); err != nil || Verify(got, key) {
		t.Errorf("an edited filter: decode %v, verifies %v; want decoded and not verified", err, err == nil && Verify(got, key))
	}
	many := make([]string, MaxAdded+1)
	for i := range many {
		many[i] = "t" + strconv.Itoa(1000+i)
	}
	added := func(names []string) string {
		b, _ := json.Marshal(names)
		return strings.Replace(text, `"filter":"`+kept.Known.Filter+`"`, `"added":`+string(b), 1)
	}
	for name, tt := range map[string]struct{ text, want string }{
		"not a filter":   {strings.Replace(text, kept.Known.Filter, "gzip:1:AAAA", 1), "known.filter: not a bloom1 filter"},
		"bad hash count": {strings.Replace(text, kept.Known.Filter, "bloom1:99:AAAAAAAAAAA=", 1), "known.filter: hash count"},
		"not base64":     {strings.Replace(text, kept.Known.Filter, "bloom1:3:!!!", 1), "known.filter: not base64"},
		"too small":      {strings.Replace(text, kept.Known.Filter, "bloom1:3:AAAA", 1), "known.filter: 3 bytes, under 8"},
		"too large":      {strings.Replace(text, kept.Known.Filter, "bloom1:3:"+strings.Repeat("A", 70_000), 1), "known.filter: over"},
		"too many added": {added(many), "known.added: 201 names"},
		"unsorted added": {added([]string{"b", "a"}), "known.added: not sorted"},
		"repeated added": {added([]string{"a", "a"}), "known.added: not sorted"},
		"added bytes":    {added([]string{strings.Repeat("a", 9000)}), "known.added: 9000 bytes"},
	} {
		if _, err := Decode(tt.text); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Decode error = %v, want it to contain %q", name, err, tt.want)
		}
	}
}
