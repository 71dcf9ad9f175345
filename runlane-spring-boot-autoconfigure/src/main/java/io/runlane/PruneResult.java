package io.runlane;

/**
 * What a prune deleted.
 *
 * @param runs runs deleted, with their events and key ownership
 * @param batches transactions used
 * @param complete whether no matching run was left (false when {@code maxRuns} stopped it)
 */
public record PruneResult(long runs, int batches, boolean complete) {}
