#!/usr/bin/env bash
# Renders one breaker comment as GitHub shows it (the same page as
# comment-height.sh: goldmark GFM, github-markdown-css, an 880 px column,
# <details> closed) to a PNG with headless Chromium: the picture the README
# shows of a trip.
#
#   bash bench/comment-picture.sh internal/cli/testdata/comments/no-trailers.md docs/trip.png
#
# Needs Chromium (Debian: apt-get install chromium) and npm.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bench/comment-picture.sh COMMENT.md OUT.png" >&2; exit 2; }
in=$(realpath "$1") out=$(realpath -m "$2")
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm install --prefix "$tmp/npm" --no-audit --no-fund --ignore-scripts --loglevel=error github-markdown-css@5.9.0 >/dev/null
css="$tmp/npm/node_modules/github-markdown-css/github-markdown-light.css"
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
go build -o "$tmp/commentheight" ./bench/commentheight
"$tmp/commentheight" -css "$css" -width 880 "$in" >"$tmp/page.html"
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
	--disable-sync --no-first-run --user-data-dir="$tmp/profile" --virtual-time-budget=2000 --hide-scrollbars)
h=$("$browser" "${flags[@]}" --window-size=880,4000 --dump-dom "file://$tmp/page.html" 2>/dev/null |
	sed -n 's:.*<title>\([0-9]*\).*</title>.*:\1:p' | head -1)
"$browser" "${flags[@]}" --window-size="880,${h:-800}" --screenshot="$out" "file://$tmp/page.html" >/dev/null 2>&1
echo "$out: 880x${h:-800}"
