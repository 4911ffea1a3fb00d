#!/usr/bin/env bash
# Measures how tall a breaker comment renders on GitHub: GFM (goldmark),
# GitHub's stylesheet (npm github-markdown-css), an 880 px column, folded
# <details> closed, in headless Chromium. Prints "<px> <file>" per file, and
# "wider-by-<px>px" after the height when a table or a code block in view
# does not fit the column (it scrolls sideways on GitHub).
#
#   bash bench/comment-height.sh internal/cli/testdata/comments/*.md
#
# Needs Chromium (Debian: apt-get install chromium) and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm install --prefix "$tmp/npm" --no-audit --no-fund --ignore-scripts --loglevel=error github-markdown-css@5.9.0 >/dev/null
css="$tmp/npm/node_modules/github-markdown-css/github-markdown-light.css"
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
go build -o "$tmp/commentheight" ./bench/commentheight
for f in "$@"; do
	"$tmp/commentheight" -css "$css" -width 880 "$f" >"$tmp/page.html"
	h=$("$browser" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$tmp/profile" --window-size=880,4000 --virtual-time-budget=2000 \
		--dump-dom "file://$tmp/page.html" 2>/dev/null | sed -n 's:.*<title>\([0-9]*\( wider-by-[0-9]*px\)\{0,1\}\)</title>.*:\1:p' | head -1)
	echo "${h:-?} $f"
done
