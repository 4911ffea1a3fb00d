# Sourced by comment-height.sh and comment-picture.sh: the page GitHub
# shows a comment on (goldmark GFM, GitHub's stylesheet from npm
# github-markdown-css, an 880 px column, <details> closed) and the headless
# Chromium that renders it. Needs Chromium (Debian: apt-get install
# chromium) and npm. Sets $tmp (removed on exit), $browser and
# chromium_flags; page IN.md writes $tmp/page.html.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm install --prefix "$tmp/npm" --no-audit --no-fund --ignore-scripts --loglevel=error github-markdown-css@5.9.0 >/dev/null
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
go build -o "$tmp/commentheight" ./bench/commentheight
chromium_flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
	--disable-sync --no-first-run --user-data-dir="$tmp/profile" --virtual-time-budget=2000)
page() {
	"$tmp/commentheight" -css "$tmp/npm/node_modules/github-markdown-css/github-markdown-light.css" -width 880 "$1" >"$tmp/page.html"
}
