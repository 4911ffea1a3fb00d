package ledger

import (
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
