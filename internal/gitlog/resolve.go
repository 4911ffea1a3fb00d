package gitlog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// revision is a revision resolved to a commit.
type revision struct {
	hash plumbing.Hash
	ref  plumbing.ReferenceName // the full ref it came through; "" for a SHA or an expression
}

// defaultBases are the refs tried, in order, when no base is given and
// refs/remotes/origin/HEAD does not name one.
var defaultBases = []plumbing.ReferenceName{
	"refs/remotes/origin/main",
	"refs/remotes/origin/master",
	"refs/heads/main",
	"refs/heads/master",
}

// resolve turns a revision into a commit. Full SHAs and ref names are looked
// up directly, in git's order (refs/X, refs/tags/X, refs/heads/X,
// refs/remotes/X, refs/remotes/X/HEAD); only other expressions (HEAD~2,
// abbreviated SHAs) go through go-git's general and slower resolver.
func (r *Repo) resolve(rev string) (revision, error) {
	if rev == "" {
		rev = "HEAD"
	}
	got, err := r.resolveFast(rev)
	if err == nil && got.hash.IsZero() {
		var h *plumbing.Hash
		h, err = r.git.ResolveRevision(plumbing.Revision(rev))
		if err == nil {
			got = revision{hash: *h}
		}
	}
	if err == nil {
		got.hash, err = r.peel(got.hash)
	}
	if err != nil {
		return revision{}, fmt.Errorf("resolve revision %q: %w", rev, err)
	}
	return got, nil
}

// resolveFast resolves full SHAs and ref names; a zero hash and no error
// means rev is neither.
func (r *Repo) resolveFast(rev string) (revision, error) {
	if len(rev) == 40 && isHex(rev) {
		return revision{hash: plumbing.NewHash(rev)}, nil
	}
	for _, name := range refCandidates(rev) {
		ref, err := storer.ResolveReference(r.store, name)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			continue
		}
		if err != nil {
			return revision{}, err
		}
		return revision{hash: ref.Hash(), ref: name}, nil
	}
	return revision{}, nil
}

// refCandidates lists the full ref names git tries for a short name.
func refCandidates(rev string) []plumbing.ReferenceName {
	if strings.HasPrefix(rev, "refs/") || rev == "HEAD" {
		return []plumbing.ReferenceName{plumbing.ReferenceName(rev)}
	}
	if strings.ContainsAny(rev, "~^:@{} ") {
		return nil
	}
	return []plumbing.ReferenceName{
		plumbing.ReferenceName("refs/" + rev),
		plumbing.ReferenceName("refs/tags/" + rev),
		plumbing.ReferenceName("refs/heads/" + rev),
		plumbing.ReferenceName("refs/remotes/" + rev),
		plumbing.ReferenceName("refs/remotes/" + rev + "/HEAD"),
	}
}

// peel follows annotated tags down to the commit they point at.
func (r *Repo) peel(h plumbing.Hash) (plumbing.Hash, error) {
	for range 10 {
		obj, err := r.store.EncodedObject(plumbing.AnyObject, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return plumbing.ZeroHash, fmt.Errorf("object %s: %w", h, ErrMissingObject)
		}
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("object %s: %w", h, err)
		}
		switch obj.Type() {
		case plumbing.CommitObject:
			return h, nil
		case plumbing.TagObject:
			tag, err := object.DecodeTag(r.store, obj)
			if err != nil {
				return plumbing.ZeroHash, fmt.Errorf("tag %s: %w", h, err)
			}
			h = tag.Target
		default:
			return plumbing.ZeroHash, fmt.Errorf("object %s is a %s, not a commit", h, obj.Type())
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("tag %s: too many levels of tags", h)
}

// defaultBase finds the repository's default branch: the target of
// refs/remotes/origin/HEAD, else the first of defaultBases that exists.
// It returns a zero revision when there is none.
func (r *Repo) defaultBase() (revision, error) {
	names := defaultBases
	if sym, err := r.store.Reference("refs/remotes/origin/HEAD"); err == nil && sym.Type() == plumbing.SymbolicReference {
		names = append([]plumbing.ReferenceName{sym.Target()}, names...)
	}
	for _, name := range names {
		ref, err := storer.ResolveReference(r.store, name)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			continue
		}
		if err != nil {
			return revision{}, fmt.Errorf("resolve default base %s: %w", name, err)
		}
		h, err := r.peel(ref.Hash())
		if err != nil {
			return revision{}, fmt.Errorf("resolve default base %s: %w", name, err)
		}
		return revision{hash: h, ref: name}, nil
	}
	return revision{}, nil
}

// headBranch is the short branch name of the head revision, or "".
// For "" or "HEAD" it is the branch HEAD points at; a remote-tracking ref
// refs/remotes/<remote>/<name> gives <name>.
func (r *Repo) headBranch(got revision) string {
	name := got.ref
	if name == plumbing.HEAD {
		sym, err := r.store.Reference(plumbing.HEAD)
		if err != nil || sym.Type() != plumbing.SymbolicReference {
			return ""
		}
		name = sym.Target()
	}
	switch {
	case name.IsBranch():
		return name.Short()
	case name.IsRemote():
		_, branch, ok := strings.Cut(strings.TrimPrefix(name.String(), "refs/remotes/"), "/")
		if ok && branch != "HEAD" {
			return branch
		}
	}
	return ""
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}
