package io.runlane;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What {@link RunOperations#prune(PruneRequest)} deletes: terminal runs that finished longer ago than {@code
 * olderThan}, of the given statuses (S-OP-3), in batches of {@code batchSize}, at most {@code maxRuns} in one call.
 * Active statuses are rejected before anything is touched.
 *
 * @param olderThan the minimum age since the run finished (database clock)
 * @param statuses the terminal statuses to prune
 * @param batchSize runs deleted per transaction
 * @param maxRuns the most runs one call deletes
 */
public record PruneRequest(Duration olderThan, Set<RunStatus> statuses, int batchSize, int maxRuns) {

    public static final int DEFAULT_BATCH_SIZE = 1000;

    public PruneRequest {
        Objects.requireNonNull(olderThan, "olderThan");
        Objects.requireNonNull(statuses, "statuses");
        if (olderThan.isNegative()) {
            throw new ConfigurationInvalidException("olderThan", "must not be negative, but was " + olderThan);
        }
        if (statuses.isEmpty()) {
            throw new ConfigurationInvalidException("statuses", "must name at least one terminal status");
        }
        for (RunStatus status : statuses) {
            if (!status.isTerminal()) {
                throw new ConfigurationInvalidException(
                        "statuses",
                        "must be terminal, but includes the active status " + status
                                + " (S-OP-3, see docs/guarantees.md#s-op-3)");
            }
        }
        if (batchSize < 1 || batchSize > 10_000) {
            throw new ConfigurationInvalidException("batchSize", "must be between 1 and 10000, but was " + batchSize);
        }
        if (maxRuns < 1) {
            throw new ConfigurationInvalidException("maxRuns", "must be at least 1, but was " + maxRuns);
        }
        statuses = Set.copyOf(EnumSet.copyOf(statuses));
    }

    /** Every terminal run older than the given age. */
    public static PruneRequest olderThan(Duration olderThan) {
        return new PruneRequest(
                olderThan,
                EnumSet.of(RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED),
                DEFAULT_BATCH_SIZE,
                Integer.MAX_VALUE);
    }

    public PruneRequest withStatuses(RunStatus... statuses) {
        return new PruneRequest(olderThan, Set.of(statuses), batchSize, maxRuns);
    }

    public PruneRequest withBatchSize(int batchSize) {
        return new PruneRequest(olderThan, statuses, batchSize, maxRuns);
    }

    public PruneRequest withMaxRuns(int maxRuns) {
        return new PruneRequest(olderThan, statuses, batchSize, maxRuns);
    }
}
