package io.runlane.autoconfigure;

import jakarta.validation.constraints.Min;
import java.time.Duration;

/** Recovery of runs whose worker died (expired leases), under the prefix {@code runlane.recovery} (S-EX-7). */
public class RecoveryProperties {

    /** Whether this instance recovers expired leases; safe to run on every instance at once. */
    private boolean enabled = true;

    /** How often expired leases are looked for (jittered). */
    private Duration interval = Duration.ofSeconds(15);

    /** Expired leases recovered per batch. */
    @Min(1)
    private int batchSize = 100;

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
}
