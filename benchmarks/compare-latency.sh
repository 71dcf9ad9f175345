#!/usr/bin/env bash
# Compares the trigger and claim latencies of two revisions: builds the benchmark jar of each in a temporary git
# worktree (as compare-revisions.sh does) and runs the "scale" scenario of each in alternating rounds (A B A B ...).
# The scenario triggers one run with an idempotency key (timed), claims it as a worker would (timed) and completes it,
# one sample after the other, against a schema with few and one with many retained finished runs. A task without
# debounce, rate limit, throttle or priority is what it triggers, so against a revision before wave 3 this measures
# what wave 3's features cost the hot path when present but unused (issue 33). Prints each round's p50 and p99 per
# side and figure, and per figure the B ÷ A ratio of every round pair, with its median and range.
#
# Usage: benchmarks/compare-latency.sh [A] [B]
#   A       the baseline revision, default 115bf06 (the last revision before wave 3)
#   B       the revision measured against it, default HEAD
# Environment: ROUNDS (default 6), RUN_ARGS (default --quick: 200 samples per round, 10,000 and 100,000 retained
#   runs; RUN_ARGS= is full mode: 3 × 1,000 samples, 10,000 and 10,000,000 retained runs, minutes per run),
#   JDBC_URL, KEEP=1 and JARS=DIR as for compare-revisions.sh.
set -euo pipefail

A_REV=${1:-115bf06}
B_REV=${2:-HEAD}
ROUNDS=${ROUNDS:-6}
RUN_ARGS=${RUN_ARGS---quick}
SCENARIO="scale"

source "$(dirname "${BASH_SOURCE[0]}")/compare-common.sh"

# One run of one side; prints "figure p50 p99" lines, e.g. "trigger@10000 0.41 0.80".
run_side() {
    local side=$1 round=$2
    run_benchmark "$side" "$round"
    # e.g. "[  1:02] scale, 10,000 finished runs retained: trigger p50 0.41 ms, p99 0.80 ms; claim p50 1.1 ms, p99 2.0 ms"
    sed -nE 's/.*scale, ([0-9,]+) finished runs retained: trigger p50 ([0-9.]+)[^,]*, p99 ([0-9.]+)[^;]*; claim p50 ([0-9.]+)[^,]*, p99 ([0-9.]+).*/\1 \2 \3 \4 \5/p' \
        "$work/$side-$round.log" | tr -d , | awk '{ print "trigger@" $1, $2, $3; print "claim@" $1, $4, $5 }' | sort -k1,1
}

if [[ -z "${JARS:-}" ]]; then
    build a "$A_REV"
    build b "$B_REV"
fi

echo "A = $A_REV, B = $B_REV, $ROUNDS round pairs, each run: java -jar runlane-benchmarks.jar $RUN_ARGS --only '$SCENARIO'"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-16s %9s %9s %9s %9s %9s %9s\n' round figure "A p50" "A p99" "B p50" "B p99" "B÷A p50" "B÷A p99"
table="$work/rounds.txt"
: >"$table"
for ((round = 1; round <= ROUNDS; round++)); do
    run_side a "$round" >"$work/a-$round.txt"
    run_side b "$round" >"$work/b-$round.txt"
    join "$work/a-$round.txt" "$work/b-$round.txt" | while read -r figure a50 a99 b50 b99; do
        awk -v r="$round" -v f="$figure" -v a50="$a50" -v a99="$a99" -v b50="$b50" -v b99="$b99" 'BEGIN {
            printf "%-6s %-16s %9.2f %9.2f %9.2f %9.2f %9.3f %9.3f\n", r, f, a50, a99, b50, b99, b50 / a50, b99 / a99
        }' | tee -a "$table"
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "B ÷ A per figure (ms latency, lower is better for B): median (lowest-highest) over $ROUNDS round pairs"
for figure in $(awk '{print $2}' "$table" | sort -u); do
    for column in 7 8; do
        awk -v f="$figure" -v c="$column" '$2 == f {print $c}' "$table" | sort -g | awk -v f="$figure" -v c="$column" '
            { v[NR] = $1 }
            END {
                median = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                printf "%-16s %s %.3f (%.3f-%.3f)\n", f, c == 7 ? "p50" : "p99", median, v[1], v[NR]
            }'
    done
done
