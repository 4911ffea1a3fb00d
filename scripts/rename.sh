#!/usr/bin/env bash
# Renames this copy of the breaker for whoever publishes it under another
# owner: the Go module path, the action's references, the image name, the
# release owner and the docs' links, in one commit-ready change.
#
#   scripts/rename.sh NEW_OWNER/NEW_REPO
#
# Every place the owner appears is the string "greenlight-ci/breaker" (the
# module path github.com/greenlight-ci/breaker, the uses: lines, the image
# ghcr.io/greenlight-ci/breaker, release URLs), the owner alone (the
# "author:" of the two action.yml files, the attestation command's --owner)
# and the release owner and name in .goreleaser.yaml. The image name
# is written in lower case, as GHCR requires. The work tree must be clean, so
# the change is one reviewable diff; nothing is committed.
set -euo pipefail
old="greenlight-ci/breaker" old_owner="greenlight-ci"
usage() { echo "usage: scripts/rename.sh NEW_OWNER/NEW_REPO   (e.g. scripts/rename.sh acme/circuit-breaker)" >&2; exit 2; }
[ $# -eq 1 ] || usage
new="$1"
fail() { echo "rename: $*" >&2; exit 1; }
[[ "$new" =~ ^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$ ]] ||
	fail "'$new' is not OWNER/REPO as GitHub spells them (letters, digits and '-' in the owner; letters, digits, '.', '_' and '-' in the name)"
[ "$new" != "$old" ] || fail "the copy is already named $old"
owner="${new%%/*}" name="${new#*/}"
lower="$(printf '%s' "$new" | tr 'A-Z' 'a-z')"
command -v go >/dev/null || fail "go is not on PATH (needed to format the renamed imports)"
cd "$(git rev-parse --show-toplevel)"
git diff --quiet && git diff --cached --quiet || fail "the work tree has changes; rename from a clean checkout so the rename is one diff"

# Every tracked text file that names the owner (binary files are left out).
# This script and docs/publishing.md, which describe the rename, keep the
# original name.
keep=(':!scripts/rename.sh' ':!docs/publishing.md')
mapfile -t files < <(git grep -I -l -F "$old_owner" -- . "${keep[@]}" || true)
[ "${#files[@]}" -gt 0 ] || fail "no file names $old; is this a copy of the breaker?"
for f in "${files[@]}"; do
	sed -i.bak \
		-e "s|ghcr\.io/${old}|ghcr.io/${lower}|g" \
		-e "s|${old}|${new}|g" \
		-e "s|\\b${old_owner}\\b|${owner}|g" \
		"$f"
	rm -f "$f.bak"
done
# The release's GitHub owner and repository, under .goreleaser.yaml's
# release: block (the archives keep the binary's name, breaker).
if [ -f .goreleaser.yaml ]; then
	sed -i.bak -e "/^release:/,/^[^ ]/{s|^    owner: .*|    owner: ${owner}|;s|^    name: .*|    name: ${name}|;}" .goreleaser.yaml
	rm -f .goreleaser.yaml.bak
fi

# Imports sort by path: a new path can change their order.
mapfile -t gofiles < <(printf '%s\n' "${files[@]}" | grep '\.go$' || true)
[ "${#gofiles[@]}" -eq 0 ] || gofmt -w "${gofiles[@]}"

left="$(git grep -n -I -F "$old_owner" -- . "${keep[@]}" || true)"
[ -z "$left" ] || fail "these lines still name ${old_owner}:
$left"
echo "rename: ${#files[@]} files now name ${new} (module github.com/${new}, image ghcr.io/${lower})."
echo "rename: next: go build ./... && go test ./..., review 'git diff', commit; then see docs/publishing.md."
