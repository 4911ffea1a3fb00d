package breaker

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEvaluate_Slices(t *testing.T) {
	t.Parallel()
	twoSlices := chain(
		spec("Greenlight-Slice: S-2", "Greenlight-Test: TestA"),
		spec("Greenlight-Slice: S-2", "Greenlight-Test: TestA"),
		spec("Greenlight-Slice: S-3", "Greenlight-Test: TestA"),
		spec("Greenlight-Slice: S-3", "Greenlight-Test: TestA"),
	)
	untagged := chain(spec("Greenlight-Test: TestA"), spec("Greenlight-Test: TestA"))
	tests := []struct {
		name                    string
		in                      Input
		slice, source, checkSHA string
		total                   int
	}{
		{"the newest attempt's slice", input(twoSlices, observe(sha(4), "TestA=fail")), "S-3", SliceFromTrailer, sha(2), 2},
		{"a requested slice", Input{Commits: twoSlices, Slice: "S-2", Observation: observe(sha(4), "TestA=fail")},
			"S-2", SliceFromFlag, sha(0), 2},
		{"a requested slice claims untagged commits", Input{Commits: untagged, Slice: "S-7",
			Observation: observe(sha(2), "TestA=fail")}, "S-7", SliceFromFlag, sha(0), 2},
		{"the branch name", Input{Commits: untagged, Branch: "agent/S-12-fix",
			Observation: observe(sha(2), "TestA=fail")}, "S-12", SliceFromBranch, sha(0), 2},
		{"no attempts, slice from the branch", Input{Branch: "agent/S-4"}, "S-4", SliceFromBranch, "", 0},
		{"no slice anywhere", Input{Commits: untagged, Observation: observe(sha(2), "TestA=fail")}, "", "", sha(0), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Evaluate(tt.in)
			got := []any{d.Slice, d.SliceSource, d.Checkpoint.SHA, d.TotalFailed}
			want := []any{tt.slice, tt.source, tt.checkSHA, tt.total}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Evaluate() slice mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBranchSlice(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"agent/S-3-fix": "S-3",
		"S-01":          "S-01",
		"feat/S-12":     "S-12",
		"ABS-3":         "",
		"main":          "",
		"s-3":           "",
		"x/S-":          "",
	}
	for branch, want := range tests {
		t.Run(branch, func(t *testing.T) {
			t.Parallel()
			if got := BranchSlice(branch); got != want {
				t.Errorf("BranchSlice(%q) = %q, want %q", branch, got, want)
			}
		})
	}
}

func TestRefName(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"S-3":      "greenlight/checkpoint/S-3",
		"team/S-3": "", // one ref component: refused by CLI, Action and engine alike
		"":         "",
		"S 3":      "",
		"S..3":     "",
		"S-3.lock": "",
		"S-3.":     "",
		"S~3":      "",
		"/S":       "",
		"-S":       "",
		"S\x01":    "",
	}
	for slice, want := range tests {
		t.Run(slice, func(t *testing.T) {
			t.Parallel()
			if got := RefName(DefaultPolicy(), RefCheckpoint, slice); got != want {
				t.Errorf("RefName(%q) = %q, want %q", slice, got, want)
			}
			if err := CheckSlice(slice); (err == nil) != (want != "") {
				t.Errorf("CheckSlice(%q) = %v, want valid=%v", slice, err, want != "")
			}
		})
	}
}

func TestCheckPrefixes(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"Greenlight-", "Agent-", "X-"} {
		if err := CheckTrailerPrefix(p); err != nil {
			t.Errorf("CheckTrailerPrefix(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range []string{"Greenlight", "Bad:", "", "-x-", "A B-"} {
		if err := CheckTrailerPrefix(p); err == nil {
			t.Errorf("CheckTrailerPrefix(%q) = nil, want an error", p)
		}
	}
	for _, p := range []string{"greenlight/", "gl/", "team/gl/"} {
		if err := CheckTagPrefix(p); err != nil {
			t.Errorf("CheckTagPrefix(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range []string{"a//b/", "greenlight", "/gl/", "gl/../x/", "gl/.x/", "", "g l/"} {
		if err := CheckTagPrefix(p); err == nil {
			t.Errorf("CheckTagPrefix(%q) = nil, want an error", p)
		}
	}
}

// The slice helpers the adapters call before they evaluate: the slices the
// trailers name, a commit's slice without one, and the slice Evaluate will
// decide for.
func TestSlices_Helpers(t *testing.T) {
	t.Parallel()
	commits := chain(spec("Greenlight-Slice: S-2"), spec("Greenlight-Slice: S-3", "Greenlight-Slice: S-2"), spec("no trailer"))
	if got := NamedSlices(DefaultPolicy(), commits); !cmp.Equal(got, []string{"S-2", "S-3"}) {
		t.Errorf("NamedSlices = %q, want [S-2 S-3] in order of first appearance", got)
	}
	for _, tt := range []struct{ flag, branch, want string }{
		{"S-9", "agent/S-4", "S-9"},
		{"", "agent/S-4-login", "S-4"},
		{"", "copilot/fix login", "copilot-fix-login"},
		{"", "", ""},
	} {
		if got := FallbackSlice(tt.flag, tt.branch); got != tt.want {
			t.Errorf("FallbackSlice(%q, %q) = %q, want %q", tt.flag, tt.branch, got, tt.want)
		}
	}
	open := Push{Source: PushFromLedger, Slice: "S-3", Verdict: &Verdict{State: StateOpen, TripReason: TripNoProgress}}
	in := Input{Policy: DefaultPolicy(), Commits: chain(spec("Greenlight-Slice: S-4", "Greenlight-Test: A")), Pushes: []Push{open}}
	if s, src := VerdictSlice(in); s != "S-3" || src != SliceFromOpen {
		t.Errorf("VerdictSlice with S-3 OPEN in the ledger = %s (%s), want S-3 (%s): a new slice name never hides an OPEN one", s, src, SliceFromOpen)
	}
	in.Pushes = nil
	if s, src := VerdictSlice(in); s != "S-4" || src != SliceFromTrailer {
		t.Errorf("VerdictSlice = %s (%s), want S-4 (%s)", s, src, SliceFromTrailer)
	}
}
