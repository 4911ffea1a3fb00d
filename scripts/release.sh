#!/usr/bin/env bash
# Makes the release commit of vX.Y.Z and its tags, from HEAD:
#
#   scripts/release.sh 1.2.3 sha256:<image digest> dist/checksums.txt [ghcr.io/owner/breaker]
#
# The release commit is HEAD with two files changed, on no branch:
#   action.yml          runs the prebuilt image by digest, never the Dockerfile;
#   binary/release.env  the version and the SHA-256 of each release archive,
#                       which the binary action checks its download against.
# Then vX.Y.Z points at it and the major tag vX moves to it. Nothing is
# pushed: the release workflow pushes the tags after this succeeds. A
# release commit whose action.yml would still build the Dockerfile is
# refused, as is a missing archive sum or a malformed digest.
set -euo pipefail
usage() { echo "usage: scripts/release.sh X.Y.Z sha256:DIGEST CHECKSUMS_FILE [IMAGE]" >&2; exit 2; }
[ $# -ge 3 ] || usage
version="$1" digest="$2" checksums="$3" image="${4:-ghcr.io/greenlight-ci/breaker}"
fail() { echo "release: $*" >&2; exit 1; }

[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "version '$version' is not X.Y.Z"
[[ "$digest" =~ ^sha256:[0-9a-f]{64}$ ]] || fail "image digest '$digest' is not sha256:<64 hex digits>"
[ -f "$checksums" ] || fail "no checksums file at $checksums"
cd "$(git rev-parse --show-toplevel)"
git diff --quiet && git diff --cached --quiet || fail "the work tree has changes; release from a clean checkout"

tag="v$version" major="v${version%%.*}"
if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then fail "tag $tag exists already"; fi
git checkout -q --detach HEAD # the release commit is on no branch

# action.yml: the image by digest.
sed -i.bak "s|^  image: .*|  image: docker://${image}@${digest}|" action.yml && rm -f action.yml.bak
grep -q "^  image: docker://${image}@${digest}\$" action.yml || fail "action.yml names no prebuilt image"
if grep -q "^  image: Dockerfile" action.yml; then fail "action.yml would build the Dockerfile"; fi

# binary/release.env: the version and every archive's sum, from the release's
# own checksums file (the binary action never fetches a sum).
{
	echo "# Written by scripts/release.sh for $tag: the SHA-256 of each release archive."
	echo "BREAKER_VERSION=$version"
	for os in linux darwin windows; do
		for arch in amd64 arm64; do
			ext=tar.gz
			[ "$os" = windows ] && ext=zip
			name="breaker_${version}_${os}_${arch}.${ext}"
			sum=$(awk -v n="$name" '$2 == n { print $1 }' "$checksums")
			[[ "$sum" =~ ^[0-9a-f]{64}$ ]] || fail "$checksums has no SHA-256 for $name"
			echo "BREAKER_SHA256_${os}_${arch}=$sum"
		done
	done
} >binary/release.env.new
mv binary/release.env.new binary/release.env

git add action.yml binary/release.env
git -c user.name="${GIT_AUTHOR_NAME:-github-actions[bot]}" -c user.email="${GIT_AUTHOR_EMAIL:-41898282+github-actions[bot]@users.noreply.github.com}" \
	commit -q -m "Release $tag: action.yml runs ${image}@${digest}; binary/release.env holds the archives' sums"
commit=$(git rev-parse HEAD)
git show "$commit:action.yml" | grep -q "^  image: Dockerfile" && fail "the release commit would build the Dockerfile"
git tag "$tag" "$commit"
git tag -f "$major" "$commit" >/dev/null
echo "$commit"
