#!/usr/bin/env bash
# Renders every mermaid block of a markdown file (the charts of breaker
# replay and breaker stats) with mermaid from npm in headless Chromium, as
# GitHub renders ```mermaid blocks, and fails unless each one draws its
# diagram; with OUT.png, writes a picture of the first.
#
#   bash bench/chart-check.sh docs/replay-example.md [chart.png]
#
# Needs Chromium (Debian: apt-get install chromium) and npm.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: bench/chart-check.sh REPORT.md [OUT.png]" >&2; exit 2; }
in=$(realpath "$1")
out=${2:+$(realpath -m "$2")}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm install --prefix "$tmp/npm" --no-audit --no-fund --ignore-scripts --loglevel=error mermaid@11.4.1 >/dev/null
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
	--disable-sync --no-first-run --user-data-dir="$tmp/profile" --virtual-time-budget=5000)
n=$(grep -c '^```mermaid$' "$in" || true)
[ "$n" -gt 0 ] || { echo "chart-check: $1 has no mermaid block" >&2; exit 1; }
for i in $(seq 1 "$n"); do
	chart=$(awk -v want="$i" '/^```mermaid$/ { k++; f = (k == want); next } /^```$/ { f = 0 } f' "$in")
	{
		echo '<!doctype html><html><head><meta charset="utf-8"><title>pending</title></head><body style="width:880px"><pre class="mermaid">'
		printf '%s\n' "$chart" | sed 's/&/\&amp;/g; s/</\&lt;/g'
		echo '</pre><script src="npm/node_modules/mermaid/dist/mermaid.min.js"></script><script>'
		echo 'mermaid.initialize({startOnLoad: false});'
		echo 'mermaid.run().then(function () { var s = document.querySelector("svg");'
		echo '  document.title = s && document.body.innerText.indexOf("Syntax error") < 0 ? "drawn " + s.getAttribute("aria-roledescription") : "not drawn"; })'
		echo '.catch(function (e) { document.title = "error: " + e.message; });</script></body></html>'
	} >"$tmp/page.html"
	title=$("$browser" "${flags[@]}" --dump-dom "file://$tmp/page.html" 2>/dev/null | sed -n 's:.*<title>\([^<]*\)</title>.*:\1:p' | head -1)
	echo "chart $i of $1: ${title:-no answer}"
	case "$title" in drawn*) ;; *) exit 1 ;; esac
	if [ "$i" = 1 ] && [ -n "$out" ]; then
		"$browser" "${flags[@]}" --hide-scrollbars --window-size=900,600 --screenshot="$out" "file://$tmp/page.html" >/dev/null 2>&1
	fi
done
