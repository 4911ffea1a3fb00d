#!/usr/bin/env bash
# Every comparison the project measures, in one command (issue 35), each
# against a reference measured in the same run, alternating, printing
# ratios:
#
#   1. history: breaker evaluate against git log --format=%B base..head,
#      with and without a commit-graph (bench/run.sh);
#   2. go test -json: the breaker's reader against a plain encoding/json
#      Decoder loop over the same 105 MB stream and, where node is
#      installed, against the JSON.parse step of dorny/test-reporter's
#      parser (go test -bench);
#   3. breaker results --format json: peak memory against the parse alone
#      (bench/resultsmem);
#   4. one breaker action run as the ledger grows (bench/actioncost),
#      unsigned, with a ledger key, and reading every page;
#   5. breaker serve under load: deliveries a second, p99 to the verdict,
#      memory over 10,000 deliveries (bench/serveload);
#   6. start-up: breaker version against git --version, CPU, beside the
#      floor of any binary that links the required dependencies
#      (bench/startfloor).
#
#   bash bench/all.sh             the full figures (tens of minutes: the
#                                 200,000-commit history is generated once)
#   BENCH_QUICK=1 bash bench/all.sh   tiny sizes, one run each: what .ci/run
#                                 calls, to prove every benchmark still runs;
#                                 it fails on a crash, never on a time
#
# Needs Go, git, bc and /usr/bin/time (node is optional). Figures and the machine they were
# measured on: docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${BENCH_QUICK:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== history: breaker evaluate vs git log (bench/run.sh)"
if [ "$quick" = 1 ]; then
	BREAKER_BENCH_DIR="$tmp/history" BENCH_SIZES=4000 BENCH_RUNS=1 BENCH_GRAPH=1 bash bench/run.sh
else
	BENCH_GRAPH=1 bash bench/run.sh
fi

echo
echo "== go test -json: the breaker's reader vs a plain encoding/json.Decoder loop and, where node is"
echo "   installed, the first step of dorny/test-reporter's parser (JSON.parse a line at a time), 105 MB (MB per CPU second)"
# Rounds alternate the three; each figure is the median of its rounds.
benchtime=5x rounds=3
[ "$quick" = 1 ] && benchtime=1x rounds=1
go test -c -o "$tmp/testresult.test" ./internal/testresult
for _ in $(seq "$rounds"); do
	(cd internal/testresult && "$tmp/testresult.test" -test.run '^$' \
		-test.bench 'ParseGoTest100MB$|GoTestStdlibDecoderLoop$|GoTestNodeJSONParseFloor$' -test.benchtime "$benchtime")
done | tee "$tmp/parse.txt" | grep '^Benchmark'
rate() { # the median MB/cpu-s of a benchmark's rounds
	awk -v b="^Benchmark$1-" '$1 ~ b { for (i = 1; i <= NF; i++) if ($(i+1) == "MB/cpu-s") print $i }' "$tmp/parse.txt" |
		sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'
}
ours=$(rate ParseGoTest100MB) ref=$(rate GoTestStdlibDecoderLoop) node=$(rate GoTestNodeJSONParseFloor)
[ -n "$ours" ] && [ -n "$ref" ] || { echo "the parser benchmarks printed no MB/cpu-s"; exit 1; }
printf 'go test -json: %.2fx a plain encoding/json.Decoder loop\n' "$(echo "$ours / $ref" | bc -l)"
if [ -n "$node" ]; then
	printf "go test -json: %.2fx the JSON.parse step of dorny/test-reporter's parser, in node\n" "$(echo "$ours / $node" | bc -l)"
else
	echo "go test -json: node is not installed, no JavaScript reference"
fi

echo "== breaker results --format json: peak memory vs the parse alone (bench/resultsmem)"
if [ "$quick" = 1 ]; then go run ./bench/resultsmem -tests 20000 -runs 1; else go run ./bench/resultsmem -tests 200000 -runs 5; fi

echo
echo "== breaker action: one run as the ledger grows (bench/actioncost)"
# Unsigned, then with a ledger key (either way a push starts from the
# newest entry's carry: docs/ledger.md, the folded state), then unsigned
# with ledger-read: every-page (the whole ledger at every run), then a
# line whose commits declare attempts (folded into the carry too).
key=a-ledger-key-of-the-benchmark-0123
if [ "$quick" = 1 ]; then
	go run ./bench/actioncost -entries 3,30 -commits 40 -tests 200 -runs 1
	go run ./bench/actioncost -entries 3,30 -commits 40 -tests 200 -runs 1 -key "$key"
	go run ./bench/actioncost -entries 3,30 -commits 40 -tests 200 -runs 1 -read every-page
	go run ./bench/actioncost -entries 3,30 -commits 40 -tests 200 -runs 1 -declared 3 -key "$key"
	go run ./bench/actioncost -line 5 -commits 40 -tests 200 -key "$key" | tail -n 1
else
	go run ./bench/actioncost -entries 10,100,1000 -commits 250 -tests 20000 -runs 5
	go run ./bench/actioncost -entries 10,100,1000 -commits 250 -tests 20000 -runs 5 -key "$key"
	go run ./bench/actioncost -entries 10,100,1000 -commits 250 -tests 20000 -runs 5 -read every-page
	go run ./bench/actioncost -entries 10,100,1000 -commits 250 -tests 20000 -runs 5 -declared 3
	# Every push along a line, runs a second apart: the median and the worst.
	go run ./bench/actioncost -line 40 -pause 1100ms -commits 250 -tests 20000 -key "$key" | tail -n 1
fi

echo
echo "== breaker serve: one replica's deliveries a second, time to the verdict, memory over the deliveries (bench/serveload)"
if [ "$quick" = 1 ]; then
	go run ./bench/serveload -prs 3 -pushes 4 -every 4
else
	go run ./bench/serveload -prs 100 -pushes 100 -every 1000
fi

echo
echo "== start-up: breaker version vs git --version (CPU, user + sys, of N runs each, alternating)"
# Built as released (.goreleaser.yaml, the Dockerfile): static, no cgo,
# symbols stripped. A default build links libc through cgo (os/user, net)
# and starts the dynamic loader first: about 0.7 ms more a run here.
# Beside them, the floor (bench/startfloor): a program that links the three
# dependencies the project must use and only prints a line, once with the
# least of go-git (its plumbing) and once with go-git as the breaker uses
# it. Go initialises every linked package before main, so no breaker
# binary starts faster than the floor.
build() { CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" "$@"; }
build -o "$tmp/breaker" ./cmd/breaker
build -o "$tmp/floor" ./bench/startfloor
build -tags asused -o "$tmp/floor-asused" ./bench/startfloor
n=200
[ "$quick" = 1 ] && n=10
cpu() { # CPU seconds of n runs of a command
	/usr/bin/time -f "%U %S" -o "$tmp/t" bash -c 'for _ in $(seq '"$n"'); do "$@" >/dev/null; done' _ "$@"
	awk '{ print $1 + $2 }' "$tmp/t"
}
ours=0 floor=0 asused=0 ref=0
for _ in 1 2 3; do
	ours=$(echo "$ours + $(cpu "$tmp/breaker" version)" | bc -l)
	floor=$(echo "$floor + $(cpu "$tmp/floor")" | bc -l)
	asused=$(echo "$asused + $(cpu "$tmp/floor-asused")" | bc -l)
	ref=$(echo "$ref + $(cpu git --version)" | bc -l)
done
line() { # what, CPU seconds of 3n runs
	printf '%-48s %.2f ms a run, %.2fx git --version\n' "$1" \
		"$(echo "$2 * 1000 / (3 * $n)" | bc -l)" "$(echo "$2 / ($ref + 0.000001)" | bc -l)"
}
line "breaker version" "$ours"
line "floor: the three dependencies, go-git's plumbing" "$floor"
line "floor: the three dependencies, go-git as used" "$asused"
line "git --version" "$ref"
