package ledger

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"slices"
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

func TestDecode_Errors(t *testing.T) {
	t.Parallel()
	good, _ := Encode(entry(), nil)
	tests := map[string]struct {
		text, want string
	}{
		"no block":      {"just a summary", "no ledger entry"},
		"unclosed":      {blockStart + "\n{}", "not closed"},
		"not json":      {blockStart + "\n{oops\n" + blockEnd, "ledger block:"},
		"unknown field": {strings.Replace(good, `"cut":0`, `"cut":0,"extra":1`, 1), "unknown field"},
		"other schema":  {strings.Replace(good, Schema, "greenlight-ledger/v9", 1), "schema"},
		"bad head":      {strings.Replace(good, strings.Repeat("ab", 20), "HEAD", 1), "not a commit id"},
		"bad status":    {strings.Replace(good, `"status":"fail"`, `"status":"green"`, 1), `status "green"`},
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
	if a != b || a == c || a == d || len(a) != 12 {
		t.Errorf("fingerprints a=%s b=%s c=%s d=%s: want a==b, a!=c, a!=d, 12 hex digits", a, b, c, d)
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
	large.Tests = suite(2_000)
	packed, _ := Encode(large, key)
	f.Add(packed)
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

// A suite of 10,000 tests keeps every test: the passes are packed, the
// entry verifies, and decoding gives back exactly the tests encoded. The
// plain JSON holds fewer than 800 of them (TestEncode_PlainEntryWouldCut).
func TestEncode_LargeSuiteKeepsEveryTestPacked(t *testing.T) {
	t.Parallel()
	e := entry()
	e.Tests = suite(10_000)
	e.AllTests = true
	text, kept := Encode(e, key)
	if len(text) > maxEntryBytes+100 {
		t.Fatalf("encoded entry is %d bytes, over the %d bound", len(text), maxEntryBytes)
	}
	if kept.Cut != 0 || !kept.AllTests || kept.PassedZ == "" || len(kept.Tests) != 10_000 {
		t.Fatalf("cut %d, all tests %v, packed %v, %d tests kept: want all 10,000, packed", kept.Cut, kept.AllTests, kept.PassedZ != "", len(kept.Tests))
	}
	if strings.Contains(text, `"status":"pass"`) {
		t.Errorf("a passing test is written in plain as well as packed")
	}
	got, err := Decode(text)
	if err != nil {
		t.Fatal(err)
	}
	if !Verify(got, key) {
		t.Errorf("the packed entry does not verify")
	}
	want := append([]Test(nil), e.Tests...)
	sortTests(want)
	if diff := cmp.Diff(want, got.Tests); diff != "" {
		t.Errorf("decoded tests differ from the encoded (-want +got):\n%s", diff)
	}
	if again, _ := Encode(got, key); again != text {
		t.Errorf("re-encoding the decoded entry changes its text")
	}
}

// Without packing, the same suite would lose most of its passes: the
// figure the packing is measured against.
func TestEncode_PlainEntryWouldCut(t *testing.T) {
	t.Parallel()
	e := entry()
	plain := 0
	for _, n := range []int{100, 200, 400, 800, 1600} {
		e.Tests = suite(n)
		if len(e.Canonical()) <= maxEntryBytes {
			plain = n
		}
	}
	if plain >= 800 {
		t.Errorf("%d tests fit in plain JSON: the large-suite test no longer shows what packing adds", plain)
	}
	t.Logf("plain JSON holds at most %d-%d of these tests; packed, 10,000 fit", plain, plain*2)
}

// Past what even packed fits, the passes are cut, never a failing test:
// the entry keeps every failure, as many passes as fit packed, and says
// how many it left out.
func TestEncode_HugeSuiteCutsPassesOnly(t *testing.T) {
	t.Parallel()
	e := entry()
	e.Tests = suite(60_000)
	e.AllTests = true
	// Three passes of tests that failed before, last in canonical order:
	// kept whatever else is cut.
	e.History = map[string]bool{}
	for _, tt := range e.Tests[len(e.Tests)-3:] {
		e.History[tt.FullName()] = true
	}
	text, kept := Encode(e, key)
	if len(text) > maxEntryBytes+100 {
		t.Fatalf("encoded entry is %d bytes, over the %d bound", len(text), maxEntryBytes)
	}
	failing := 0
	for _, tt := range kept.Tests {
		if tt.Status == breaker.StatusFail {
			failing++
		}
	}
	if failing != 60_000/500 || kept.PassedZ == "" || kept.AllTests || kept.Cut == 0 || kept.Cut+len(kept.Tests) != 60_000 {
		t.Errorf("%d failing kept, packed %v, all tests %v, cut %d + kept %d: want every failure, passes packed, the rest of 60,000 said as cut",
			failing, kept.PassedZ != "", kept.AllTests, kept.Cut, len(kept.Tests))
	}
	if len(kept.Tests) < 10_000 {
		t.Errorf("only %d tests kept: the packing left room unused", len(kept.Tests))
	}
	for name := range e.History {
		if !slices.ContainsFunc(kept.Tests, func(tt Test) bool { return tt.FullName() == name }) {
			t.Errorf("the pass of %s, which failed before, was cut", name)
		}
	}
	got, err := Decode(text)
	if err != nil || !Verify(got, key) || len(got.Tests) != len(kept.Tests) {
		t.Errorf("decode %v, verifies %v, %d tests: want the %d kept", err, err == nil && Verify(got, key), len(got.Tests), len(kept.Tests))
	}
}

// A packed entry is evidence like any other: editing passed_z breaks the
// MAC, and what is malformed or too large is refused with the field named.
func TestDecode_PackedPassesRefused(t *testing.T) {
	t.Parallel()
	e := entry()
	e.Tests = suite(10_000)
	text, kept := Encode(e, key)
	other := append([]Test(nil), kept.Tests...)
	other[1].Name += "_renamed" // a passing test
	other[1].Status = breaker.StatusPass
	forged := kept
	forged.Tests = other
	forged.PassedZ = pack(other)
	forgedText := strings.Replace(text, kept.PassedZ, forged.PassedZ, 1)
	if got, err := Decode(forgedText); err != nil || Verify(got, key) {
		t.Errorf("an edited passed_z: decode %v, verifies %v; want decoded and not verified", err, err == nil && Verify(got, key))
	}

	pairs := func(n int) string {
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`["s","t"]`)
		}
		b.WriteString("]")
		return gz(b.String())
	}
	bomb := pairs(2_000_000) // 20 MB unpacked from about 40 KB
	inline := strings.Replace(text, `"status":"fail"`, `"status":"pass"`, 1)
	for name, tt := range map[string]struct{ text, want string }{
		"not base64":         {strings.Replace(text, kept.PassedZ, "!!!", 1), "passed_z: not base64"},
		"not gzip":           {strings.Replace(text, kept.PassedZ, "aGVsbG8=", 1), "passed_z: not gzip"},
		"not pairs":          {strings.Replace(text, kept.PassedZ, gz(`{"a":1}`), 1), "passed_z: not a list"},
		"unpacks too large":  {strings.Replace(text, kept.PassedZ, bomb, 1), "passed_z: unpacks to over"},
		"too many tests":     {strings.Replace(text, kept.PassedZ, pairs(600_000), 1), "passed_z: 600000 tests, over the"},
		"empty list":         {strings.Replace(text, kept.PassedZ, gz(`[]`), 1), "passed_z: packs no test"},
		"passes in two ways": {inline, "passes both in tests and in passed_z"},
	} {
		if _, err := Decode(tt.text); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Decode error = %v, want it to contain %q", name, err, tt.want)
		}
	}
}

// gz is s gzipped and base64'd, as passed_z holds it.
func gz(s string) string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}
