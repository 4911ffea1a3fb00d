#!/usr/bin/env bash
# Measures how tall a breaker comment renders on GitHub: GFM (goldmark),
# GitHub's stylesheet (npm github-markdown-css), an 880 px column, folded
# <details> closed, in headless Chromium. Prints "<px> <file>" per file, and
# "wider-by-<px>px" after the height when a table or a code block in view
# does not fit the column (it scrolls sideways on GitHub).
#
#   bash bench/comment-height.sh internal/action/testdata/comments/*.md
#
# Needs Chromium (Debian: apt-get install chromium) and npm.
set -euo pipefail
files=()
for f in "$@"; do files+=("$(realpath "$f")"); done
. "$(dirname "$0")/comment-page.sh"
for f in "${files[@]}"; do
	page "$f"
	h=$("$browser" "${chromium_flags[@]}" --window-size=880,4000 --dump-dom "file://$tmp/page.html" 2>/dev/null |
		sed -n 's:.*<title>\([0-9]*\( wider-by-[0-9]*px\)\{0,1\}\)</title>.*:\1:p' | head -1)
	echo "${h:-?} ${f#"$PWD"/}"
done
