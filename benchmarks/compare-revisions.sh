#!/usr/bin/env bash
# Compares the trigger path of two revisions: builds the benchmark jar of each in a temporary git worktree and runs
# the "trigger, new runs" scenario of each in alternating rounds (A B A B ...), so that drift of the machine's load
# affects both alike. Prints each round's triggers/s (Runlane, and the plain JDBC insert measured in the same run),
# and per thread count the B ÷ A ratio of every round pair, with its median and range. The second ratio divides each
# side by its own JDBC insert first, which cancels load that changed between the two runs of a pair. Each run's costs
# at 16 threads follow (the database's and the benchmark process's CPU time per 1,000 triggers, WAL per trigger),
# which the machine's load distorts less than throughput.
#
# Usage: benchmarks/compare-revisions.sh [A] [B]
#   A       the baseline revision, default 8fc60ae~1 (the revision before the flow-control API, issues 29 and 30)
#   B       the revision measured against it, default HEAD
# Environment:
#   ROUNDS      round pairs, default 5
#   RUN_ARGS    arguments of each benchmark run, default --quick (one 1 s round per figure); RUN_ARGS= (empty) is
#               full mode (a 3 s warm-up, 3 rounds of 5 s per figure, about 2 min a run); --only is added
#   JDBC_URL    an existing server (--jdbc-url); default an embedded PostgreSQL per run
#   KEEP=1      keep the temporary directory with the jars and each run's log (it prints where)
#   JARS=DIR    reuse a.jar and b.jar of a kept directory instead of building them (A and B only label the output)
#
# The worktrees, builds and runs are compare-common.sh's.
set -euo pipefail

A_REV=${1:-8fc60ae~1}
B_REV=${2:-HEAD}
ROUNDS=${ROUNDS:-5}
RUN_ARGS=${RUN_ARGS---quick}
SCENARIO="trigger, new runs"

source "$(dirname "${BASH_SOURCE[0]}")/compare-common.sh"

# One run of one side; prints "threads runlane jdbc" lines, one per thread count.
run_side() {
    local side=$1 round=$2
    run_benchmark "$side" "$round"
    # e.g. "[  0:12] trigger, new runs, 4 threads: Runlane 1234/s, JDBC insert 2345/s"; full mode adds "(low-high)"
    sed -nE 's/.*trigger, new runs, ([0-9]+) threads?: Runlane ([0-9.]+)[^,]*, JDBC insert ([0-9.]+).*/\1 \2 \3/p' \
        "$work/$side-$round.log" | sort -k1,1
}

if [[ -z "${JARS:-}" ]]; then
    build a "$A_REV"
    build b "$B_REV"
fi

echo "A = $A_REV, B = $B_REV, $ROUNDS round pairs, each run: java -jar runlane-benchmarks.jar $RUN_ARGS --only '$SCENARIO'"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-8s %12s %12s %12s %12s %8s %10s\n' round threads "A trig/s" "A jdbc/s" "B trig/s" "B jdbc/s" "B÷A" "B÷A/jdbc"
table="$work/rounds.txt"
: >"$table"
for ((round = 1; round <= ROUNDS; round++)); do
    run_side a "$round" >"$work/a-$round.txt"
    run_side b "$round" >"$work/b-$round.txt"
    join "$work/a-$round.txt" "$work/b-$round.txt" | while read -r threads ar aj br bj; do
        awk -v r="$round" -v t="$threads" -v ar="$ar" -v aj="$aj" -v br="$br" -v bj="$bj" 'BEGIN {
            printf "%-6s %-8s %12.0f %12.0f %12.0f %12.0f %8.3f %10.3f\n", r, t, ar, aj, br, bj, br / ar, (br / bj) / (ar / aj)
        }' | tee -a "$table"
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "costs at 16 threads, per round: database CPU ms / 1,000 triggers, process CPU ms / 1,000 triggers, WAL bytes / trigger"
for ((round = 1; round <= ROUNDS; round++)); do
    for side in a b; do
        costs=$(sed -nE 's/^\| trigger, new runs [^|]*: (database server CPU per 1,000 runs \(ms\)|benchmark process CPU per 1,000 runs \(ms\)|WAL per run \(bytes\)) \| ([0-9.]+) .*/\2/p' \
            "$work/$side-$round.md" | tr '\n' ' ')
        echo "round $round ${side^^}: ${costs:-not measured}"
    done
done

echo
echo "B ÷ A per thread count: median (lowest-highest) over $ROUNDS round pairs"
for threads in $(awk '{print $2}' "$table" | sort -n -u); do
    for column in 7 8; do
        awk -v t="$threads" -v c="$column" '$2 == t {print $c}' "$table" | sort -g | awk -v t="$threads" -v c="$column" '
            { v[NR] = $1 }
            END {
                median = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                label = c == 7 ? "triggers/s" : "triggers/s ÷ same run'"'"'s JDBC insert"
                printf "%2d threads, %-36s %.3f (%.3f-%.3f)\n", t, label, median, v[1], v[NR]
            }'
    done
done
