#!/usr/bin/env bash
# Renders one breaker comment as GitHub shows it (the same page as
# comment-height.sh: goldmark GFM, github-markdown-css, an 880 px column,
# <details> closed) to a PNG with headless Chromium: the picture the README
# shows of a trip.
#
#   bash bench/comment-picture.sh internal/action/testdata/comments/no-trailers.md docs/trip.png
#
# Needs Chromium (Debian: apt-get install chromium) and npm.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bench/comment-picture.sh COMMENT.md OUT.png" >&2; exit 2; }
in=$(realpath "$1") out=$(realpath -m "$2")
. "$(dirname "$0")/comment-page.sh"
page "$in"
h=$("$browser" "${chromium_flags[@]}" --hide-scrollbars --window-size=880,4000 --dump-dom "file://$tmp/page.html" 2>/dev/null |
	sed -n 's:.*<title>\([0-9]*\).*</title>.*:\1:p' | head -1)
"$browser" "${chromium_flags[@]}" --hide-scrollbars --window-size="880,${h:-800}" --screenshot="$out" "file://$tmp/page.html" >/dev/null 2>&1
