package ledger

import (
	"strings"
	"testing"
)

// A relay carries entries as their runs wrote them, each with the id of
// its check run: they read back equal and verify; with a key the relay's
// own MAC covers the ids, so an id edited in the text fails the relay.
func TestRelay_RoundTrip(t *testing.T) {
	t.Parallel()
	_, a := Encode(entry(), key)
	_, b := Encode(carried(), key)
	a.CheckRunID, b.CheckRunID = 101, 202
	for _, k := range [][]byte{key, nil} {
		text := "The ledger entry of this head.\n\n" + EncodeRelay([]Entry{a, b}, k)
		got, err := DecodeRelay(text, k)
		if err != nil || len(got) != 2 {
			t.Fatalf("key %v: %d entries, %v", k != nil, len(got), err)
		}
		if got[0].CheckRunID != 101 || got[1].CheckRunID != 202 || !Verify(got[0], key) || !Verify(got[1], key) {
			t.Errorf("key %v: read back ids %d, %d; verified %v, %v", k != nil, got[0].CheckRunID, got[1].CheckRunID, Verify(got[0], key), Verify(got[1], key))
		}
		if got[1].Carry == nil || got[1].Carry.Pushes != 40 {
			t.Errorf("key %v: the relayed entry lost its carry: %+v", k != nil, got[1].Carry)
		}
	}
	signed := EncodeRelay([]Entry{a, b}, key)
	if _, err := DecodeRelay(strings.Replace(signed, `"id":101`, `"id":303`, 1), key); err == nil {
		t.Error("a relay whose ids were edited verifies")
	}
	if _, err := DecodeRelay(signed, []byte("another-key-of-16-bytes")); err == nil {
		t.Error("a relay verifies with another key")
	}
	if got, err := DecodeRelay("no relay here", key); err != nil || got != nil {
		t.Errorf("a text without a relay: %v, %v", got, err)
	}
	if EncodeRelay(nil, key) != "" {
		t.Error("an empty relay is written")
	}
}

// DecodeRelay refuses, naming what is wrong, a relay it cannot stand on.
func TestRelay_DecodeRefuses(t *testing.T) {
	t.Parallel()
	_, a := Encode(entry(), nil)
	a.CheckRunID = 101
	good := EncodeRelay([]Entry{a}, nil)
	many := make([]Entry, MaxRelay+1)
	for i := range many {
		many[i] = a
	}
	for name, tt := range map[string]struct{ text, want string }{
		"open":    {strings.TrimSuffix(good, relayEnd+"\n"), "not closed"},
		"json":    {strings.Replace(good, `{"runs"`, `{"runs" x`, 1), "relay block"},
		"field":   {strings.Replace(good, `{"runs"`, `{"extra":1,"runs"`, 1), "unknown field"},
		"id":      {strings.Replace(good, `"id":101`, `"id":0`, 1), "check run 0"},
		"entry":   {strings.Replace(good, `"schema"`, `"schemas"`, 1), "entry 1"},
		"many":    {EncodeRelay(many, nil), "more than"},
		"no mac":  {good, "does not verify"},
		"too big": {strings.Repeat("x", maxDecode+1), "bound"},
	} {
		k := []byte(nil)
		if name == "no mac" {
			k = key
		}
		if _, err := DecodeRelay(tt.text, k); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to say %q", name, err, tt.want)
		}
	}
}

// FuzzDecodeRelay: any text gives entries or an error, never a panic, and
// the entries a relay gives are written back to the same relay.
func FuzzDecodeRelay(f *testing.F) {
	_, a := Encode(carried(), key)
	a.CheckRunID = 7
	f.Add(EncodeRelay([]Entry{a}, nil))
	f.Add(EncodeRelay([]Entry{a, a}, key))
	f.Add(relayStart + "\n{\"runs\":[]}\n" + relayEnd)
	f.Add("nothing")
	f.Fuzz(func(t *testing.T, text string) {
		es, err := DecodeRelay(text, nil)
		if err != nil {
			return
		}
		again, err := DecodeRelay(EncodeRelay(es, nil), nil)
		if err != nil || len(again) != len(es) {
			t.Fatalf("a relay read back does not survive being written again: %d of %d, %v", len(again), len(es), err)
		}
	})
}
