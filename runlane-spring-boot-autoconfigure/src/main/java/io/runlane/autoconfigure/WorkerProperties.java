package io.runlane.autoconfigure;

import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The worker that claims and executes runs on this instance, under the prefix {@code runlane.worker}. */
public class WorkerProperties {

    /** Whether this instance executes runs; producers-only instances set it to false. */
    private boolean enabled = true;

    /** Attempts this instance executes at once. */
    @Min(1)
    private int concurrency = 8;

    /** How often an idle worker looks for due runs (jittered); new runs wake it sooner. */
    private Duration pollInterval = Duration.ofSeconds(1);

    /** How long a claim is valid without a heartbeat. */
    private Duration leaseDuration = Duration.ofSeconds(60);

    /** How often leases of running attempts are extended. */
    private Duration heartbeatInterval = Duration.ofSeconds(20);

    /** How long stopping waits for running attempts before leaving them to lease expiry. */
    private Duration shutdownTimeout = Duration.ofSeconds(30);

    /** Queues this instance consumes; empty means every declared queue. */
    private List<String> queues = new ArrayList<>();

    /** How long one attempt may run when its task sets no timeout; none by default. */
    private @Nullable Duration attemptTimeout;

    /** How long a run asked to stop may run on before it is made CANCELLED, freeing its keys and queue capacity. */
    private Duration cancellationGrace = Duration.ofMinutes(5);

    /**
     * Whether a run triggered while this worker has a free slot is stored already claimed by it and starts after
     * the trigger's commit (or its caller's transaction's), instead of waiting for a claim.
     */
    private boolean startOnTrigger = true;

    public boolean isStartOnTrigger() {
        return startOnTrigger;
    }

    public void setStartOnTrigger(boolean startOnTrigger) {
        this.startOnTrigger = startOnTrigger;
    }

    public @Nullable Duration getAttemptTimeout() {
        return attemptTimeout;
    }

    public void setAttemptTimeout(@Nullable Duration attemptTimeout) {
        this.attemptTimeout = attemptTimeout;
    }

    public Duration getCancellationGrace() {
        return cancellationGrace;
    }

    public void setCancellationGrace(Duration cancellationGrace) {
        this.cancellationGrace = cancellationGrace;
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getConcurrency() {
        return concurrency;
    }

    public void setConcurrency(int concurrency) {
        this.concurrency = concurrency;
    }

    public Duration getPollInterval() {
        return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    public Duration getLeaseDuration() {
        return leaseDuration;
    }

    public void setLeaseDuration(Duration leaseDuration) {
        this.leaseDuration = leaseDuration;
    }

    public Duration getHeartbeatInterval() {
        return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
    }

    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public List<String> getQueues() {
        return queues;
    }

    public void setQueues(List<String> queues) {
        this.queues = queues;
    }
}
