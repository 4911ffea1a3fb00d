#!/usr/bin/env bash
# Runs the released breaker binary as the container action runs its image:
# downloads the archive for this runner's OS and architecture, checks it
# against the SHA-256 sum written into release.env at release time (never a
# sum fetched beside the archive), keeps it in the runner's tool cache, and
# runs `breaker action` with the step's INPUT_* environment.
#
# Environment: RUNNER_OS (Linux, macOS, Windows), RUNNER_ARCH (X64, ARM64),
# RUNNER_TOOL_CACHE, and optionally BREAKER_RELEASES_URL (a mirror of the
# release downloads, e.g. on GitHub Enterprise Server).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=/dev/null
source "$here/release.env"
fail() { echo "::error title=Circuit breaker (binary)::$*"; echo "breaker: $*" >&2; exit 1; }

version="${BREAKER_VERSION:-}"
[ -n "$version" ] || fail "this copy of the binary action names no release (binary/release.env is empty): use it at a release tag, e.g. greenlight-ci/breaker/binary@v1.2.3"

case "${RUNNER_OS:-}" in
	Linux) os=linux ;;
	macOS) os=darwin ;;
	Windows) os=windows ;;
	*) fail "runner OS '${RUNNER_OS:-}' is not Linux, macOS or Windows" ;;
esac
case "${RUNNER_ARCH:-}" in
	X64) arch=amd64 ;;
	ARM64) arch=arm64 ;;
	*) fail "runner architecture '${RUNNER_ARCH:-}' is not X64 or ARM64" ;;
esac
ext=tar.gz exe=breaker
if [ "$os" = windows ]; then ext=zip exe=breaker.exe; fi
archive="breaker_${version}_${os}_${arch}.${ext}"
var="BREAKER_SHA256_${os}_${arch}"
want="${!var:-}"
[ -n "$want" ] || fail "release.env has no SHA-256 for $archive"

cache="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/greenlight-breaker/${version}/${os}-${arch}"
bin="$cache/$exe"
if [ -x "$bin" ] && [ "$(cat "$cache/.sha256" 2>/dev/null)" = "$want" ]; then
	echo "breaker: using the cached $archive ($cache)"
else
	base="${BREAKER_RELEASES_URL:-https://github.com/greenlight-ci/breaker/releases/download}"
	tmp="$(mktemp -d)"
	trap 'rm -rf "$tmp"' EXIT
	echo "breaker: downloading $archive"
	curl -fsSL --retry 3 -o "$tmp/$archive" "$base/v${version}/$archive" || fail "could not download $base/v${version}/$archive"
	if command -v sha256sum >/dev/null 2>&1; then
		got="$(sha256sum "$tmp/$archive" | cut -d' ' -f1)"
	else
		got="$(shasum -a 256 "$tmp/$archive" | cut -d' ' -f1)"
	fi
	[ "$got" = "$want" ] || fail "$archive does not match its release: SHA-256 $got, release.env says $want; not run"
	mkdir -p "$tmp/x"
	if [ "$ext" = zip ]; then unzip -q "$tmp/$archive" -d "$tmp/x"; else tar -xzf "$tmp/$archive" -C "$tmp/x"; fi
	[ -f "$tmp/x/$exe" ] || fail "$archive holds no $exe"
	mkdir -p "$cache"
	mv "$tmp/x/$exe" "$bin"
	chmod +x "$bin"
	echo "$want" >"$cache/.sha256"
fi
exec "$bin" action
