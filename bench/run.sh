#!/usr/bin/env bash
# History-at-scale benchmark (issue 6): times `breaker evaluate` against
# `git log --format=%B main..agent` on generated repositories, alternating
# the two in the same run, and reports median wall times, their ratio and
# peak RSS. See the README, "Reading history at scale".
#
# Environment:
#   BREAKER_BENCH_DIR  fixture and binaries cache (default /tmp/breaker-bench)
#   BENCH_RUNS         runs of each command per case (default 11)
#   BENCH_SIZES        main-branch sizes to test (default "10000 50000 200000")
#   BENCH_GRAPH        1 = also measure with a commit-graph file written
#   BENCH_DRIVER       evaluate | gitlog (default: evaluate when it builds and runs)
#   BENCH_REPACK       0 = keep fast-import's pack instead of repacking like a server
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${BREAKER_BENCH_DIR:-/tmp/breaker-bench}
runs=${BENCH_RUNS:-11}
sizes=${BENCH_SIZES:-"10000 50000 200000"}
mkdir -p "$dir/bin"

# fast-import frees and re-grows its heap constantly; on some kernels the
# brk calls dominate. A large trim threshold keeps the heap in place.
export GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=268435456:glibc.malloc.mmap_threshold=268435456

build() {
	(cd "$root" && go build -o "$dir/bin/gen" ./bench/gen && go build -o "$dir/bin/gitlogbench" ./bench/gitlogbench)
	# breaker as released (.goreleaser.yaml, the Dockerfile): static, no cgo, stripped.
	if (cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$dir/bin/breaker" ./cmd/breaker) 2>/dev/null; then :; else rm -f "$dir/bin/breaker"; fi
}

# forks lists the fork distances generated for a history size.
forks() { if [ "$1" -ge 200000 ]; then echo "30,3000,30000"; else echo "30,3000"; fi; }

generate() {
	local n=$1 repo="$dir/repo-$1"
	[ -f "$repo/.bench-complete" ] && return
	rm -rf "$repo"
	git init -q -b main "$repo"
	echo "generating $repo ($n commits on main)..." >&2
	local t0=$SECONDS
	"$dir/bin/gen" -commits "$n" -forks "$(forks "$n")" | git -C "$repo" fast-import --quiet
	git -C "$repo" symbolic-ref HEAD refs/heads/main
	touch "$repo/.bench-complete"
	echo "  done in $((SECONDS - t0)) s, $(du -sh "$repo/.git" | cut -f1)" >&2
}

# repack rewrites the pack the way a server's pack-objects would for a
# clone: newest objects whole, older ones as deltas against them.
# fast-import does the opposite (every new version a delta at the end of a
# chain up to 50 deep), which no clone looks like.
repack() {
	local repo="$dir/repo-$1"
	[ "${BENCH_REPACK:-1}" = 1 ] || return 0
	[ -f "$repo/.bench-repacked" ] && return
	echo "repacking $repo..." >&2
	local t0=$SECONDS
	git -C "$repo" repack -adfq
	touch "$repo/.bench-repacked"
	echo "  done in $((SECONDS - t0)) s, $(du -sh "$repo/.git" | cut -f1)" >&2
}

# results writes the JUnit file evaluate reads: the agent's tests failing.
results() {
	cat >"$1/results.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="cache" tests="4" failures="2">
  <testcase name="TestCache0" classname="cache"><failure message="got 1, want 2">cache_test.go:12: got 1, want 2</failure></testcase>
  <testcase name="TestCache1" classname="cache"/>
  <testcase name="TestCache2" classname="cache"><failure message="nil map">cache_test.go:40: nil map</failure></testcase>
  <testcase name="TestCache3" classname="cache"/>
</testsuite>
XML
}

# driver prints the command that reads the agent branch: breaker evaluate
# when it builds and prints its JSON, else the bench-only reader.
driver() {
	local repo=$1 head=$2 mode=${BENCH_DRIVER:-}
	local eval_cmd="$dir/bin/breaker evaluate --repo $repo --head $head --base main --results results.xml --format json"
	results "$repo"
	if [ -z "$mode" ]; then
		mode=gitlog
		# evaluate exits 42 when the breaker trips (as it does here): judge by its output.
		if [ -x "$dir/bin/breaker" ] && { $eval_cmd >"$dir/evaluate.out" 2>"$dir/evaluate.err" || true; } &&
			grep -q '"schema"' "$dir/evaluate.out"; then
			mode=evaluate
		else
			local why="cmd/breaker did not build"
			[ -x "$dir/bin/breaker" ] && why=$(head -c 200 "$dir/evaluate.err")
			echo "note: breaker evaluate unavailable ($why); timing bench/gitlogbench" >&2
		fi
	fi
	case $mode in
	evaluate) echo "$eval_cmd" ;;
	*) echo "$dir/bin/gitlogbench -repo $repo -head $head -base main" ;;
	esac
}

# measure runs a command once: prints "<wall ms> <peak RSS KB>".
measure() {
	local out="$dir/time.$$" t0 t1
	t0=$(date +%s%N)
	/usr/bin/time -f "%M" -o "$out" "$@" >/dev/null 2>&1 || true
	t1=$(date +%s%N)
	echo "$(((t1 - t0) / 1000)) $(tail -1 "$out")"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

bench_case() {
	local repo=$1 head=$2 label=$3 cmd ours="" theirs="" rss_ours=0 rss_theirs=0
	read -r -a cmd <<<"$(driver "$repo" "$head")"
	for _ in $(seq "$runs"); do
		read -r us kb < <(measure "${cmd[@]}")
		ours+="$us"$'\n'; ((kb > rss_ours)) && rss_ours=$kb
		read -r us kb < <(measure git -C "$repo" log --format=%B "main..$head")
		theirs+="$us"$'\n'; ((kb > rss_theirs)) && rss_theirs=$kb
	done
	local mo mt
	mo=$(printf '%s' "$ours" | median)
	mt=$(printf '%s' "$theirs" | median)
	printf '%-28s %-9s %10.1f %10.1f %7.2f %9d %9d\n' "$label" "$(basename "${cmd[0]}")" \
		"$(echo "$mo / 1000" | bc -l)" "$(echo "$mt / 1000" | bc -l)" "$(echo "$mo / $mt" | bc -l)" \
		$((rss_ours / 1024)) $((rss_theirs / 1024))
}

report() {
	local graph=$1
	printf '\n%-28s %-9s %10s %10s %7s %9s %9s\n' "case${graph:+ (commit-graph)}" driver "ours ms" "git ms" ratio "ours MB" "git MB"
	for n in $sizes; do
		for d in $(forks "$n" | tr , ' '); do
			bench_case "$dir/repo-$n" "agent-$d" "main=$n fork=$d"
		done
	done
}

build
for n in $sizes; do generate "$n" && repack "$n"; done
echo "runs per command: $runs (alternating); medians of wall time; peak RSS is the maximum over runs"
report ""
if [ "${BENCH_GRAPH:-0}" = 1 ]; then
	for n in $sizes; do git -C "$dir/repo-$n" commit-graph write --reachable; done
	report graph
	for n in $sizes; do rm -f "$dir/repo-$n/.git/objects/info/commit-graph"; done
fi
