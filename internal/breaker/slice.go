package breaker

import (
	"regexp"
	"strings"
)

// The values of Decision.SliceSource: where the verdict's slice id came from.
const (
	SliceFromFlag    = "flag"    // Input.Slice (--slice / the slice input)
	SliceFromTrailer = "trailer" // the newest attempt's <prefix>Slice trailer
	SliceFromBranch  = "branch"  // an S-<n> in the branch name
)

// branchSliceRE finds an S-<n> slice id in a branch name that is not the
// tail of a longer word (agent/S-3-fix → S-3, but not BS-3).
var branchSliceRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9])(S-[0-9]+)`)

// BranchSlice returns the first S-<n> slice id in a branch name, or "".
func BranchSlice(branch string) string {
	m := branchSliceRE.FindStringSubmatch(branch)
	if m == nil {
		return ""
	}
	return m[1]
}

// sliceOf returns the slice of one commit and where it came from: its
// <prefix>Slice trailer, else the requested slice, else the branch name.
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
	return "", ""
}

// verdictSlice picks the slice the decision is about: the requested one,
// else the slice of the newest attempt, else the branch's S-<n>.
func verdictSlice(in Input, cands []candidate) (slice, source string) {
	if in.Slice != "" {
		return in.Slice, SliceFromFlag
	}
	if n := len(cands); n > 0 {
		return cands[n-1].slice, cands[n-1].sliceSource
	}
	if b := BranchSlice(in.Branch); b != "" {
		return b, SliceFromBranch
	}
	return "", ""
}

// checkpointTag returns the checkpoint tag of slice, or "" when the slice
// id cannot be part of a git ref name (empty, spaces, "..", control bytes).
func checkpointTag(p Policy, slice string) string {
	if !validRefPart(slice) {
		return ""
	}
	return p.TagPrefix + "checkpoint/" + slice
}

// validRefPart reports whether s can be the last part of a git ref name.
func validRefPart(s string) bool {
	if s == "" || strings.Contains(s, "..") || strings.Contains(s, "@{") ||
		strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") ||
		strings.HasSuffix(s, ".") || strings.HasSuffix(s, "/") ||
		strings.HasSuffix(s, ".lock") || strings.Contains(s, "//") {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`~^:?*[\`, r) {
			return false
		}
	}
	return true
}
