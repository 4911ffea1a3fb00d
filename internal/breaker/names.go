package breaker

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/rx"
)

// The default prefixes of the protocol: trailer keys (Greenlight-Test) and
// the breaker's tags (greenlight/checkpoint/S-3). Every package that needs a
// default takes it from here.
const (
	DefaultTrailerPrefix = "Greenlight-"
	DefaultTagPrefix     = "greenlight/"
)

// RefKind is a kind of breaker tag kept in the remote repository.
type RefKind string

// The breaker's tags: the slice's rollback point and its last verified reset.
const (
	RefCheckpoint RefKind = "checkpoint"
	RefReset      RefKind = "reset"
)

// The rules of the names a user or an agent chooses, worded for errors.
const (
	sliceRule   = "use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 100 characters, e.g. S-3"
	trailerRule = "use letters, digits and '-', starting with a letter or digit and ending with '-', e.g. Greenlight-"
	tagRule     = "use letters, digits, '.', '_', '-' and single '/', starting with a letter or digit and ending with '/', e.g. greenlight/"
)

var (
	sliceRE   = rx.Lazy(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)
	trailerRE = rx.Lazy(`^[A-Za-z0-9][A-Za-z0-9-]{0,48}-$`)
	tagRE     = rx.Lazy(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,98}/$`)
)

// ValidSlice reports whether id may name a slice: it becomes the last part
// of a tag name and of the comment's marker, so it is one ref component.
func ValidSlice(id string) bool { return CheckSlice(id) == nil }

// CheckSlice returns nil when id may name a slice, else an error that says
// why and how to write one. The CLI (--slice), the Action (the slice input,
// /breaker reset) and the engine (a <prefix>Slice trailer) all use it, so a
// slice id is accepted or refused with the same words everywhere.
func CheckSlice(id string) error {
	if !sliceRE().MatchString(id) || strings.Contains(id, "..") || strings.HasSuffix(id, ".lock") || strings.HasSuffix(id, ".") {
		return fmt.Errorf("slice id %q is not valid: %s", id, sliceRule)
	}
	return nil
}

// CheckTrailerPrefix returns nil when p may prefix the protocol's trailer
// keys, else an error naming the rule.
func CheckTrailerPrefix(p string) error {
	if !trailerRE().MatchString(p) {
		return fmt.Errorf("trailer prefix %q is not valid: %s", p, trailerRule)
	}
	return nil
}

// CheckTagPrefix returns nil when p may prefix the breaker's tag names, else
// an error naming the rule.
func CheckTagPrefix(p string) error {
	if !tagRE().MatchString(p) || strings.Contains(p, "..") || strings.Contains(p, "//") ||
		strings.Contains(p, "/.") || strings.Contains(p, ".lock/") {
		return fmt.Errorf("tag prefix %q is not valid: %s", p, tagRule)
	}
	return nil
}

// RefName returns the name of the breaker's tag of kind for slice under the
// policy's tag prefix, e.g. "greenlight/checkpoint/S-3" (without "refs/tags/"),
// or "" when slice cannot name a tag (CheckSlice).
func RefName(p Policy, kind RefKind, slice string) string {
	if !ValidSlice(slice) {
		return ""
	}
	return RefPrefix(p, kind) + slice
}

// RefPrefix returns the common prefix of the tag names of kind, e.g.
// "greenlight/checkpoint/".
func RefPrefix(p Policy, kind RefKind) string {
	return p.normalized().TagPrefix + string(kind) + "/"
}

// ShortSHA abbreviates a commit id to 7 characters, as git does by default,
// for every sentence a person reads.
func ShortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
