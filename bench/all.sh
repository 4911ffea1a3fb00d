#!/usr/bin/env bash
# Every comparison the project measures, in one command (issue 35), each
# against a reference measured in the same run, alternating, printing
# ratios:
#
#   1. history: breaker evaluate against git log --format=%B base..head,
#      with and without a commit-graph (bench/run.sh);
#   2. go test -json: the breaker's reader against a plain encoding/json
#      Decoder loop over the same stream (go test -bench);
#   3. breaker results --format json: peak memory against the parse alone
#      (bench/resultsmem);
#   4. one breaker action run as the ledger grows (bench/actioncost),
#      unsigned, with a ledger key, and reading every page;
#   5. start-up: breaker version against git --version, CPU.
#
#   bash bench/all.sh             the full figures (tens of minutes: the
#                                 200,000-commit history is generated once)
#   BENCH_QUICK=1 bash bench/all.sh   tiny sizes, one run each: what .ci/run
#                                 calls, to prove every benchmark still runs;
#                                 it fails on a crash, never on a time
#
# Needs Go, git, bc and /usr/bin/time. Figures and the machine they were
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
echo "== go test -json: the breaker's reader vs a plain encoding/json.Decoder loop (MB per CPU second)"
benchtime=5x
[ "$quick" = 1 ] && benchtime=1x
go test ./internal/testresult -run '^$' -bench 'ParseGoTest100k$|GoTestStdlibDecoderLoop$' -benchtime "$benchtime" -count 1 |
	tee "$tmp/parse.txt" | grep '^Benchmark'
ours=$(awk '/^BenchmarkParseGoTest100k/ { for (i = 1; i <= NF; i++) if ($(i+1) == "MB/cpu-s") print $i }' "$tmp/parse.txt")
ref=$(awk '/^BenchmarkGoTestStdlibDecoderLoop/ { for (i = 1; i <= NF; i++) if ($(i+1) == "MB/cpu-s") print $i }' "$tmp/parse.txt")
[ -n "$ours" ] && [ -n "$ref" ] || { echo "the parser benchmarks printed no MB/cpu-s"; exit 1; }
printf 'go test -json: %.2fx a plain encoding/json.Decoder loop\n' "$(echo "$ours / $ref" | bc -l)"

echo
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
else
	go run ./bench/actioncost -entries 10,100,1000 -commits 250 -tests 20000 -runs 5
	go run ./bench/actioncost -entries 10,100,1000 -commits 250 -tests 20000 -runs 5 -key "$key"
	go run ./bench/actioncost -entries 10,100,1000 -commits 250 -tests 20000 -runs 5 -read every-page
	go run ./bench/actioncost -entries 10,100,1000 -commits 250 -tests 20000 -runs 5 -declared 3
fi

echo
echo "== start-up: breaker version vs git --version (CPU, user + sys, of N runs each, alternating)"
# Built as released (.goreleaser.yaml, the Dockerfile): static, no cgo,
# symbols stripped. A default build links libc through cgo (os/user, net)
# and starts the dynamic loader first: about 0.7 ms more a run here.
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$tmp/breaker" ./cmd/breaker
n=200
[ "$quick" = 1 ] && n=10
cpu() { # CPU seconds of n runs of a command
	/usr/bin/time -f "%U %S" -o "$tmp/t" bash -c 'for _ in $(seq '"$n"'); do "$@" >/dev/null; done' _ "$@"
	awk '{ print $1 + $2 }' "$tmp/t"
}
ours=0 ref=0
for _ in 1 2 3; do
	ours=$(echo "$ours + $(cpu "$tmp/breaker" version)" | bc -l)
	ref=$(echo "$ref + $(cpu git --version)" | bc -l)
done
printf 'breaker version %.2f ms, git --version %.2f ms a run: %.2fx\n' \
	"$(echo "$ours * 1000 / (3 * $n)" | bc -l)" "$(echo "$ref * 1000 / (3 * $n)" | bc -l)" "$(echo "$ours / ($ref + 0.000001)" | bc -l)"
