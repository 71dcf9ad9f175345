package io.runlane.internal.kernel;

import io.runlane.ConfigurationInvalidException;
import io.runlane.RunStatus;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The automatic pruning job's configuration (S-OP-4): how long finished runs of each status are kept, how often
 * the job runs, its batch size and the time budget of one tick.
 *
 * @param retention how long runs of each terminal status are kept after they finish
 * @param interval how often the job runs (jittered)
 * @param batchSize runs deleted per transaction
 * @param timeBudget how long one tick may keep deleting
 */
public record PruningSettings(
        Map<RunStatus, Duration> retention, Duration interval, int batchSize, Duration timeBudget) {

    public PruningSettings {
        retention.forEach((status, age) -> {
            if (!status.isTerminal()) {
                throw new ConfigurationInvalidException(
                        "runlane.pruning.retention", "names the active status " + status);
            }
            String field = "runlane.pruning.retention." + status.name().toLowerCase(Locale.ROOT);
            if (age == null) {
                throw new ConfigurationInvalidException(field, "must be set");
            }
            TimeRules.requireDuration(field, age);
        });
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new ConfigurationInvalidException(
                    "runlane.pruning.interval", "must be positive, but was " + interval);
        }
        if (batchSize < 1 || batchSize > 10_000) {
            throw new ConfigurationInvalidException(
                    "runlane.pruning.batch-size", "must be between 1 and 10000, but was " + batchSize);
        }
        if (timeBudget == null || timeBudget.isNegative() || timeBudget.isZero()) {
            throw new ConfigurationInvalidException(
                    "runlane.pruning.time-budget", "must be positive, but was " + timeBudget);
        }
        retention = Map.copyOf(retention);
    }

    /** Succeeded and cancelled runs 7 days, failed runs 30 days; every minute; 1000 a batch; 10 s a tick. */
    public static PruningSettings defaults() {
        Map<RunStatus, Duration> retention = new EnumMap<>(RunStatus.class);
        retention.put(RunStatus.SUCCEEDED, Duration.ofDays(7));
        retention.put(RunStatus.CANCELLED, Duration.ofDays(7));
        retention.put(RunStatus.FAILED, Duration.ofDays(30));
        return new PruningSettings(retention, Duration.ofMinutes(1), 1000, Duration.ofSeconds(10));
    }

    public PruningSettings withRetention(Map<RunStatus, Duration> retention) {
        return new PruningSettings(retention, interval, batchSize, timeBudget);
    }

    public PruningSettings withBatchSize(int batchSize) {
        return new PruningSettings(retention, interval, batchSize, timeBudget);
    }

    public PruningSettings withInterval(Duration interval) {
        return new PruningSettings(retention, interval, batchSize, timeBudget);
    }
}
