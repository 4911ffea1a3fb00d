package breaker

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// fuzzInput decodes bytes into an Input: three bytes per commit choose the
// test, the slice, the claimed result and the files; the last byte shapes
// the observation, the reset and the scope lock.
func fuzzInput(data []byte, force bool) Input {
	var specs [][]string
	for i := 0; i+2 < len(data); i += 3 {
		specs = append(specs, fuzzSpec(data[i], data[i+1], data[i+2]))
	}
	in := input(chain(specs...), Observation{})
	in.Force = force
	if len(data) == 0 {
		return in
	}
	last := data[len(data)-1]
	in.Observation = observe(sha(int(last)%(len(specs)+2)), "TestA=fail", "TestB=pass", "TestC=error", "TestD=skip")
	if last%7 == 0 {
		in.Observation.Infra = "no result files"
	}
	if last%5 == 0 {
		// A reset record at a head the branch may or may not have.
		in.Pushes = append(in.Pushes, Push{Head: sha(int(last) % (len(specs) + 3)), Slice: "S-1", Reset: &ResetRecord{Author: "alice"}},
			Push{Head: "bogus", Slice: "S-2", Reset: &ResetRecord{}})
	}
	if last%3 == 0 {
		in.Scope = fakeScope{prefix: "internal/"}
	}
	if last%11 == 0 {
		in.Slice = "S-2"
	}
	return in
}

// fuzzSpec is one commit's spec lines from three bytes.
func fuzzSpec(a, b, c byte) []string {
	var s []string
	if a%9 != 8 {
		s = append(s, fmt.Sprintf("Greenlight-Test: Test%c", 'A'+a%4))
	}
	if a%5 == 4 {
		s = append(s, "greenlight-test: TestB")
	}
	if a%13 == 12 {
		s = append(s, "Greenlight-Infra: flaky runner")
	}
	if b%3 != 2 {
		s = append(s, fmt.Sprintf("Greenlight-Slice: S-%d", 1+b%3))
	}
	results := []string{"", "pass", "fail", "infra", "PASS", "perhaps"}
	if r := results[int(b/3)%len(results)]; r != "" {
		s = append(s, "Greenlight-Result: "+r)
	}
	files := []string{"~internal/a.go", "+docs/b.md", "-internal/c.go", "~go.mod"}
	s = append(s, files[int(c)%len(files)])
	if c%3 == 0 {
		s = append(s, "Greenlight-Justify: go.mod: the test needs it", "Greenlight-Error: expected 1, got 2")
	}
	if c%4 == 1 {
		s = append(s, "Greenlight-Hypothesis: h", "Greenlight-Question: q")
	}
	return s
}

// checkInvariants asserts what every Decision must satisfy.
func checkInvariants(t *testing.T, in Input, d Decision) {
	t.Helper()
	failed, perTest := 0, map[string]int{}
	for i, a := range d.Attempts {
		if a.Number != i+1 {
			t.Fatalf("attempt %d has Number %d", i, a.Number)
		}
		switch a.Result {
		case OutcomeFail:
			failed++
			perTest[a.Test]++
		case OutcomePass:
			perTest[a.Test] = 0
		}
	}
	if d.TotalFailed != failed {
		t.Fatalf("TotalFailed = %d, want %d failed attempts since the reset", d.TotalFailed, failed)
	}
	for _, s := range d.Tests {
		if s.FailedAttempts != perTest[s.Name] {
			t.Fatalf("test %s FailedAttempts = %d, want %d", s.Name, s.FailedAttempts, perTest[s.Name])
		}
		if s.FailedAttempts >= d.Limits.PerTest && !d.Tripped {
			t.Fatalf("test %s at %d failures but not tripped", s.Name, s.FailedAttempts)
		}
	}
	if d.TotalFailed >= d.Limits.Slice && !d.Tripped {
		t.Fatalf("slice at %d failures but not tripped", d.TotalFailed)
	}
	checkState(t, in, d)
}

// checkState asserts the state, trip reason and diagnostics agree.
func checkState(t *testing.T, in Input, d Decision) {
	t.Helper()
	if d.Tripped != (d.State == StateOpen) {
		t.Fatalf("Tripped = %v with State %s", d.Tripped, d.State)
	}
	switch {
	case d.Tripped && d.TripReason != TripPerTest && d.TripReason != TripSliceCeiling:
		t.Fatalf("tripped with reason %q", d.TripReason)
	case !d.Tripped && in.Force && d.TripReason != TripManual:
		t.Fatalf("forced, not tripped, reason %q", d.TripReason)
	case !d.Tripped && !in.Force && d.TripReason != TripNone:
		t.Fatalf("not tripped, not forced, reason %q", d.TripReason)
	}
	if want := d.Tripped || in.Force; want != (len(d.Diagnostics) > 0) {
		t.Fatalf("%d diagnostics, tripped %v, forced %v", len(d.Diagnostics), d.Tripped, in.Force)
	}
	for _, g := range d.Diagnostics {
		if g.TestExpectation == "" || g.ActualError == "" || g.BestHypothesis == "" ||
			g.SpecificQuestion == "" || len(g.RecoveryOptions) != 4 {
			t.Fatalf("diagnostic with an empty field: %+v", g)
		}
	}
}

func FuzzEvaluate(f *testing.F) {
	f.Add([]byte{}, false)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 3}, false)
	f.Add([]byte{0, 1, 2, 1, 1, 1, 2, 1, 1, 3, 1, 1, 0, 0, 0, 30}, true)
	f.Add([]byte{12, 3, 3, 8, 5, 1, 4, 2, 0, 55}, true)
	f.Fuzz(func(t *testing.T, data []byte, force bool) {
		in := fuzzInput(data, force)
		checkInvariants(t, in, Evaluate(in))
	})
}

func TestEvaluate_Properties(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		data := make([]byte, r.IntN(40))
		for i := range data {
			data[i] = byte(r.IntN(256))
		}
		in := fuzzInput(data, r.IntN(2) == 0)
		checkInvariants(t, in, Evaluate(in))
	}
}

func TestEvaluate_Degenerate(t *testing.T) {
	t.Parallel()
	odd := []Input{
		{},
		{Commits: []Commit{{}}},
		{Commits: []Commit{{Trailers: []Trailer{{Key: "Greenlight-Test", Value: "T"}}}}, Force: true,
			Observation: Observation{Tests: map[string]ObservedTest{"T": {Status: "weird"}}}},
		{Commits: chain(attempt("T")), Pushes: []Push{{Slice: "S-3", Reset: &ResetRecord{}}}, Force: true, Scope: nilScope{}},
		{Policy: Policy{PerTestLimit: -1, SliceLimit: -5}, Commits: chain(attempt("T")), Force: true},
	}
	for i, in := range odd {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			checkInvariants(t, in, Evaluate(in))
		})
	}
}

func TestEvaluate_LongBranchIsLinear(t *testing.T) {
	t.Parallel()
	specs := make([][]string, 20000)
	for i := range specs {
		specs[i] = attempt(fmt.Sprintf("Test%d", i%50), "Greenlight-Result: fail")
	}
	in := input(chain(specs...), Observation{})
	in.Force = true
	d := Evaluate(in)
	checkInvariants(t, in, d)
	if d.TotalFailed != 20000 {
		t.Errorf("TotalFailed = %d, want 20000", d.TotalFailed)
	}
}
