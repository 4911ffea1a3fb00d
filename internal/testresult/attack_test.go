package testresult

import (
	"bytes"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// Attack 1: 160,000 identical go test events for one test used to fold in
// quadratic time (74 s). The runs kept are bounded and the flakiness is
// decided in constant time; BenchmarkParseGoTest_RepeatedEvents measures
// 64 MiB of them.
func TestParseGoTest_RepeatedEventsAreBounded(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	b.WriteString(`{"Action":"fail","Package":"p","Test":"T"}` + "\n")
	for range 160_000 {
		b.WriteString(`{"Action":"pass","Package":"p","Test":"T"}` + "\n")
	}
	res, err := ParseGoTest(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tests) != 1 {
		t.Fatalf("%d tests, want 1", len(res.Tests))
	}
	got := res.Tests[0]
	if got.Status != breaker.StatusPass || !got.Flaky || len(got.Runs) > 2*maxRuns || got.Runs[0].Status != breaker.StatusFail {
		t.Errorf("status %s flaky %v runs %d (first %s); want a flaky pass, at most %d runs, the first failure kept",
			got.Status, got.Flaky, len(got.Runs), got.Runs[0].Status, 2*maxRuns)
	}
}

func BenchmarkParseGoTest_RepeatedEvents(b *testing.B) {
	line := `{"Action":"pass","Package":"p","Test":"T"}` + "\n"
	data := []byte(strings.Repeat(line, (64<<20)/len(line)))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseGoTest(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// Attack 2: a YAML block never closed with "..." swallowed the test lines
// after it, and the run read green. A top-level line ends the block.
func TestParseTAP_UnclosedYAMLDoesNotSwallowTests(t *testing.T) {
	t.Parallel()
	in := "TAP version 13\n1..2\nok 1 - TestA\n  ---\n  message: x\nnot ok 2 - TestX\n"
	res, err := ParseTAP(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	c := CountTests(res.Tests)
	if c.Total != 2 || c.Failed != 1 {
		t.Errorf("got %+v, want 2 tests and TestX failing", c)
	}
	if len(res.Warnings) == 0 || !strings.Contains(strings.Join(res.Warnings, "\n"), "not closed") {
		t.Errorf("warnings %v: want the unclosed block named", res.Warnings)
	}
}

// Attack 3: one element with millions of empty attributes took 2.65 GB.
// Tags are bounded (1 MiB) and attributes per element (1024): the file is a
// clear error at once.
func TestParseJUnit_AttributeBombIsRefused(t *testing.T) {
	t.Parallel()
	in := `<testsuite><testcase name="a"` + strings.Repeat(` a=""`, 1_000_000) + `/></testsuite>`
	_, err := ParseJUnit(strings.NewReader(in))
	if err == nil || !strings.Contains(err.Error(), "a tag longer than 1024 KiB") {
		t.Errorf("got %v, want the attribute bound named", err)
	}
}

func BenchmarkParseJUnit_AttributeBomb(b *testing.B) {
	data := []byte(`<testsuite><testcase name="a"` + strings.Repeat(` a=""`, (63<<20)/5) + `/></testsuite>`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		ParseJUnit(bytes.NewReader(data))
	}
}

func TestParseJUnit_TooManyAttributesIsRefused(t *testing.T) {
	t.Parallel()
	in := `<testsuite><testcase name="a"` + strings.Repeat(` a=""`, 2000) + `/></testsuite>`
	if _, err := ParseJUnit(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "more than 1024 attributes") {
		t.Errorf("got %v, want the attribute bound named", err)
	}
}

// RELIABILITY 15: a line naming a key twice, in any case or Unicode fold,
// is read as a failure whichever occurrence comes last.
func TestReliability15_AmbiguousJSONFailsClosed(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{"Action":"fail","Action":"pass","Package":"p","Test":"TestX"}`,
		`{"Action":"fail","action":"pass","Package":"p","Test":"TestX"}`,
		`{"ACTION":"fail","\u0061ction":"pass","Package":"p","Test":"TestX"}`,
		`{"Action":"pass","Package":"p","Test":"TestY","Teſt":"TestX"}`,
		`{"Action":"pass","x":{"a":[1,"\"Action\""]},"Package":"p","Test":"TestX","Output":"x","output":"y","z":1}`,
	} {
		res, err := ParseGoTest(strings.NewReader(line + "\n"))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if len(res.Tests) != 1 || res.Tests[0].Status != breaker.StatusFail {
			t.Errorf("%s: read as %+v; want one failed test", line, res.Tests)
		}
		if !strings.Contains(strings.Join(res.Warnings, "\n"), "twice") {
			t.Errorf("%s: no warning names the duplicate key: %q", line, res.Warnings)
		}
	}
	// Keys that only look alike, or repeat inside a value, are not ambiguous.
	for _, line := range []string{
		`{"Action":"pass","Package":"p","Test":"TestX","Output":"{\"Action\":\"fail\"}"}`,
		`{"Action":"pass","Package":"p","Test":"TestX","Actions":"fail","x":{"Action":"fail"}}`,
	} {
		res, err := ParseGoTest(strings.NewReader(line + "\n"))
		if err != nil || len(res.Tests) != 1 || res.Tests[0].Status != breaker.StatusPass {
			t.Errorf("%s: read as %+v, %v; want one passed test", line, res.Tests, err)
		}
	}
}

// FuzzAmbiguousKeys runs the key scanner over any input, valid JSON or not:
// it must never panic or run past the line.
func FuzzAmbiguousKeys(f *testing.F) {
	f.Add([]byte(`{"Action":"fail","action":"pass"}`))
	f.Add([]byte(`{"a":"\"","Test":[{"Test":1}],"Test":2}`))
	f.Add([]byte(`{"Teſt":1,"TEST":2}`))
	f.Add([]byte(`{"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = ambiguousKeys(data)
	})
}
