package breaker

import (
	"strings"

	"github.com/greenlight-ci/breaker/internal/rx"
)

// The values of Decision.SliceSource: where the verdict's slice id came from.
const (
	SliceFromFlag    = "flag"    // Input.Slice (--slice / the slice input)
	SliceFromTrailer = "trailer" // the newest attempt's <prefix>Slice trailer
	SliceFromBranch  = "branch"  // an S-<n> in the branch name
	// SliceFromOpen: an earlier run left this slice OPEN and no verified
	// reset has closed it; whatever slice the newest attempt or the
	// branch names, the line of work is judged on it until then.
	SliceFromOpen = "open"
)

// branchSliceRE finds an S-<n> slice id in a branch name that is not the
// tail of a longer word (agent/S-3-fix → S-3, but not BS-3).
var branchSliceRE = rx.Lazy(`(?:^|[^A-Za-z0-9])(S-[0-9]+)`)

// BranchSlice returns the first S-<n> slice id in a branch name, or "".
func BranchSlice(branch string) string {
	m := branchSliceRE().FindStringSubmatch(branch)
	if m == nil {
		return ""
	}
	return m[1]
}

// sliceOf returns the slice of one commit and where it came from: its
// <prefix>Slice trailer, else the requested slice, else an S-<n> in the
// branch name, else the branch itself — the one fallback, whether or not
// the commit has other trailers, so an agent that writes Test trailers but
// no Slice is judged (and reset) by its branch as one without trailers is.
func sliceOf(c Commit, p Policy, flag, branch string) (slice, source string) {
	if v, ok := TrailerValue(c.Trailers, p.Key(TrailerSlice)); ok {
		return v, SliceFromTrailer
	}
	if flag != "" {
		return flag, SliceFromFlag
	}
	if b := BranchSlice(branch); b != "" {
		return b, SliceFromBranch
	}
	if b := BranchAsSlice(branch); b != "" {
		return b, SliceFromBranch
	}
	return "", ""
}

// verdictSlice picks the slice the decision is about: the requested one,
// else a slice an earlier push left OPEN, else the slice of the newest
// attempt, else the branch's S-<n>. A new slice name, a renamed branch or
// an agent that moved on to its next slice never closes an OPEN circuit:
// the unit is the line of work, not the label.
func verdictSlice(in Input, cands []candidate) (slice, source string) {
	if in.Slice != "" {
		return in.Slice, SliceFromFlag
	}
	if open := openSlice(in); open != "" {
		return open, SliceFromOpen
	}
	if n := len(cands); n > 0 {
		return cands[n-1].slice, cands[n-1].sliceSource
	}
	if b := BranchSlice(in.Branch); b != "" {
		return b, SliceFromBranch
	}
	if b := BranchAsSlice(in.Branch); b != "" {
		return b, SliceFromBranch
	}
	return "", ""
}

// BranchAsSlice turns a branch name into a slice id for an agent that
// writes no trailers: the branch (the pull request) is the slice. Every run
// of "copilot/fix-login" judges slice "copilot-fix-login": each character a
// slice id may not hold becomes '-', and the id is cut at 100 characters.
// It returns "" when nothing usable is left.
func BranchAsSlice(branch string) string {
	var b strings.Builder
	for _, r := range strings.TrimPrefix(branch, "refs/heads/") {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-._")
	for strings.Contains(s, "..") {
		s = strings.ReplaceAll(s, "..", ".")
	}
	if len(s) > 100 {
		s = strings.TrimRight(s[:100], "-._")
	}
	s = strings.TrimSuffix(s, ".lock")
	if !ValidSlice(s) {
		return ""
	}
	return s
}

// VerdictSlice returns the slice Evaluate decides for, and where its id came
// from, without evaluating: the caller can read the slice's remote state
// before it decides.
func VerdictSlice(in Input) (slice, source string) {
	return verdictSlice(in, collect(in, in.Policy.normalized()))
}

// NamedSlices returns every slice id the commits' <prefix>Slice trailers
// name, in order of first appearance.
func NamedSlices(p Policy, commits []Commit) []string {
	key := p.Key(TrailerSlice)
	seen := map[string]bool{}
	var out []string
	for _, c := range commits {
		for _, s := range TrailerValues(c.Trailers, key) {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// FallbackSlice is the slice of a commit without a <prefix>Slice trailer:
// the requested slice, else an S-<n> in the branch name, else the branch.
func FallbackSlice(flag, branch string) string {
	if flag != "" {
		return flag
	}
	if b := BranchSlice(branch); b != "" {
		return b
	}
	return BranchAsSlice(branch)
}

// openSlice is OpenSlice over the carry's pushes, then in.Pushes.
func openSlice(in Input) string {
	if open := OpenSlice(in.Pushes); open != "" {
		return open
	}
	c := in.Carry
	if c == nil || !c.Open || c.Slice == "" {
		return ""
	}
	for _, p := range in.Pushes {
		if p.Source == PushFromLedger && p.Slice == c.Slice && p.Verdict != nil {
			return "" // a newer verdict of it, not a trip
		}
	}
	return c.Slice
}

// OpenSlice is the slice an earlier run of the line of work left OPEN:
// the slice of the newest ledger push whose slice's newest verdict is OPEN
// (a verified reset records a CLOSED verdict for its slice). "" when every
// slice's newest verdict is CLOSED. The pull cord's manual verdict is not
// a trip.
func OpenSlice(ps []Push) string {
	newest := map[string]int{}
	for i, p := range ps {
		if p.Source == PushFromLedger && p.Slice != "" && p.Verdict != nil {
			newest[p.Slice] = i
		}
	}
	best, at := "", -1
	for slice, i := range newest {
		v := ps[i].Verdict
		if v.State == StateOpen && v.TripReason != TripManual && v.TripReason != TripNone && v.TripReason != TripAgentOpen && i > at {
			best, at = slice, i
		}
	}
	return best
}
