package io.runlane;

/**
 * What a prune deleted.
 *
 * @param runs runs deleted, with their events and key ownership
 * @param batches transactions used
 * @param complete whether no matching run was left: false when {@code maxRuns} stopped it, or when it skipped runs
 *     that another transaction held at that moment (S-OP-8); pruning again then finishes the work
 */
public record PruneResult(long runs, int batches, boolean complete) {}
