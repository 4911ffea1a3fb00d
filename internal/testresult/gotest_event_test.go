package testresult

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// FuzzDecodeEvent holds the one-pass decoder to encoding/json: a line it
// decodes, json.Unmarshal decodes to the same event, and the key it says
// repeats is ambiguousKeys' answer; a line it leaves alone goes to
// encoding/json as before. Run with -fuzz for more than the seeds.
func FuzzDecodeEvent(f *testing.F) {
	for _, s := range []string{
		`{"Time":"2026-01-02T03:04:05.123456789Z","Action":"output","Package":"p","Test":"T","Output":"=== RUN   T\n"}`,
		`{"Action":"pass","Package":"p","Test":"T","Elapsed":0.01}`,
		`{"Action":"fail","action":"pass","Package":"p","Test":"T"}`,
		`{"ACTION":"fail","Package":"p"}`,
		`{"Action":"output","Output":"\u003cnil\u003e \"q\" \\ \/ \t\r\n\b\f é ✓"}`,
		`{"Action":"output","Output":"\ud83d\ude00"}`,
		`{"Action":null,"Package":"p"}`,
		`{"Action":"run","Package":1}`,
		`{"Action":"run","Extra":{"a":[1,2]}}`,
		`{"Action":"run","Elapsed":-0.5e+3,"Flag":true,"Other":false,"Z":null}`,
		`{"Action":"run",}`,
		`{"Action":"run"} x`,
		`{}`,
		`{"Teſt":"T","Action":"run"}`,
		"{\"Action\":\"output\",\"Output\":\"\xff\"}",
		`{"Action":"output","Output":"a` + "\t" + `b"}`,
		`{"Elapsed":01}`,
		`{"Elapsed":1.}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		line = bytes.TrimSpace(line)
		var fast goEvent
		var scratch []byte
		dup, ok := decodeEvent(line, &fast, func(b []byte) string { return string(b) }, &scratch)
		if !ok {
			return
		}
		var slow goEvent
		if err := json.Unmarshal(line, &slow); err != nil {
			t.Fatalf("%q: decoded as %+v, but encoding/json refuses it: %v", line, fast, err)
		}
		if fast != slow {
			t.Fatalf("%q: decoded as %+v, encoding/json says %+v", line, fast, slow)
		}
		if want := ambiguousKeys(line); dup != want {
			t.Fatalf("%q: repeated key %q, ambiguousKeys says %q", line, dup, want)
		}
	})
}

// The lines go test writes take the one-pass path; the others still
// decode, through encoding/json.
func TestDecodeEvent_TakesTheLinesGoTestWrites(t *testing.T) {
	t.Parallel()
	data := genGoTest(50)
	var scratch []byte
	n := 0
	for line := range bytes.Lines(data) {
		var ev goEvent
		if _, ok := decodeEvent(bytes.TrimSpace(line), &ev, func(b []byte) string { return string(b) }, &scratch); !ok {
			t.Errorf("%q left to encoding/json", line)
		}
		n++
	}
	if n < 200 {
		t.Fatalf("%d lines, want the generated stream's", n)
	}
	var ev goEvent
	if _, ok := decodeEvent([]byte(`{"Action":"run","Extra":{"nested":true}}`), &ev, func(b []byte) string { return string(b) }, &scratch); ok {
		t.Error("a nested value took the one-pass path; it is encoding/json's")
	}
}

// TestPlain8 holds the eight-at-a-time check to its byte-by-byte meaning:
// every special byte at every place in a word of plain ones, and random
// words.
func TestPlain8(t *testing.T) {
	plainByte := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	want := func(b []byte) bool {
		for _, c := range b {
			if !plainByte(c) {
				return false
			}
		}
		return true
	}
	check := func(b []byte) {
		t.Helper()
		if got := plain8(binary.LittleEndian.Uint64(b)); got != want(b) {
			t.Fatalf("plain8(%q) = %v, want %v", b, got, !got)
		}
	}
	for c := range 256 {
		for at := range 8 {
			b := []byte("abcdefgh")
			b[at] = byte(c)
			check(b)
		}
	}
	rng := rand.New(rand.NewPCG(35, 8))
	for range 200_000 {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte(0x1c + rng.IntN(0x70)) // mostly plain, near every edge
			if rng.IntN(16) == 0 {
				b[i] = byte(rng.IntN(256))
			}
		}
		check(b)
	}
}

// TestEventField_FastNamesAgree holds eventField's switch of the names
// test2json writes to the order of goEventKeys and to the folded match.
func TestEventField_FastNamesAgree(t *testing.T) {
	for want, name := range goEventKeys {
		if got := eventField([]byte(name)); got != want {
			t.Errorf("eventField(%q) = %d, want %d", name, got, want)
		}
		if got := eventField(bytes.ToLower([]byte(name))); got != want {
			t.Errorf("eventField(%q) = %d, want %d", strings.ToLower(name), got, want)
		}
	}
	for _, other := range []string{"Time", "Elapsed", "time", "Tests", ""} {
		if got := eventField([]byte(other)); got != -1 {
			t.Errorf("eventField(%q) = %d, want -1", other, got)
		}
	}
}
