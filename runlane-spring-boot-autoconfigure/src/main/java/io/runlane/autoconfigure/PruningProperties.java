package io.runlane.autoconfigure;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import java.time.Duration;

/** The automatic pruning job, under the prefix {@code runlane.pruning} (S-OP-4). */
public class PruningProperties {

    /** Whether this instance prunes finished runs; safe to run on every instance at once. */
    private boolean enabled = true;

    /** How often the job runs (jittered). */
    private Duration interval = Duration.ofMinutes(1);

    /** Runs deleted per transaction. */
    @Min(1)
    private int batchSize = 1000;

    /** How long one run of the job may keep deleting. */
    private Duration timeBudget = Duration.ofSeconds(10);

    @Valid
    private final Retention retention = new Retention();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getInterval() {
        return interval;
    }

    public void setInterval(Duration interval) {
        this.interval = interval;
    }

    public int getBatchSize() {
        return batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    public Duration getTimeBudget() {
        return timeBudget;
    }

    public void setTimeBudget(Duration timeBudget) {
        this.timeBudget = timeBudget;
    }

    public Retention getRetention() {
        return retention;
    }

    /** How long finished runs are kept, per status; a run whose idempotency retention runs longer is kept longer. */
    public static class Retention {

        /** How long SUCCEEDED runs are kept after they finish. */
        private Duration succeeded = Duration.ofDays(7);

        /** How long FAILED runs are kept after they finish. */
        private Duration failed = Duration.ofDays(30);

        /** How long CANCELLED runs are kept after they finish. */
        private Duration cancelled = Duration.ofDays(7);

        public Duration getSucceeded() {
            return succeeded;
        }

        public void setSucceeded(Duration succeeded) {
            this.succeeded = succeeded;
        }

        public Duration getFailed() {
            return failed;
        }

        public void setFailed(Duration failed) {
            this.failed = failed;
        }

        public Duration getCancelled() {
            return cancelled;
        }

        public void setCancelled(Duration cancelled) {
            this.cancelled = cancelled;
        }
    }
}
