# Shared by compare-revisions.sh and compare-latency.sh (sourced, not run): the temporary directory, the worktrees and
# jars of revisions A and B, and one benchmark run of one side. The sourcing script sets RUN_ARGS and SCENARIO first.
#
# It builds with "mvn -o package -pl benchmarks -am" in each worktree: the library comes from that worktree's reactor,
# nothing is installed, and the shared ~/.m2 is only read.

repo=$(git rev-parse --show-toplevel)
work=${JARS:-$(mktemp -d /tmp/runlane-compare-XXXXXX)}

cleanup() {
    if [[ "${KEEP:-0}" != 1 && -z "${JARS:-}" ]]; then
        for side in a b; do
            if [[ -d "$work/$side" ]]; then
                git -C "$repo" worktree remove --force "$work/$side" >/dev/null 2>&1 || true
            fi
        done
        rm -rf "$work"
    else
        echo "kept $work"
    fi
}
trap cleanup EXIT

build() {
    local side=$1 rev=$2
    local commit
    commit=$(git -C "$repo" rev-parse --verify "$rev^{commit}")
    echo "building $side = $rev ($(git -C "$repo" log -1 --format='%h %s' "$commit" | cut -c1-90))" >&2
    git -C "$repo" worktree add --detach --quiet "$work/$side" "$commit"
    (cd "$work/$side" && mvn -B -ntp -q -o -DskipTests package -pl benchmarks -am) >&2
    cp "$work/$side/benchmarks/target/runlane-benchmarks.jar" "$work/$side.jar"
}

# Runs $SCENARIO once with side's jar; its progress goes to $work/<side>-<round>.log, its results to .md next to it.
run_benchmark() {
    local side=$1 round=$2
    local args=()
    read -r -a args <<<"$RUN_ARGS"
    if [[ -n "${JDBC_URL:-}" ]]; then
        args+=(--jdbc-url "$JDBC_URL")
    fi
    java -jar "$work/$side.jar" "${args[@]}" --only "$SCENARIO" --results "$work/$side-$round.md" \
        >"$work/$side-$round.log" 2>&1 || {
        echo "run $side, round $round failed; its output:" >&2
        tail -40 "$work/$side-$round.log" >&2
        exit 1
    }
}
