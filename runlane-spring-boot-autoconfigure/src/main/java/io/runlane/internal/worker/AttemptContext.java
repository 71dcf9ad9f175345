package io.runlane.internal.worker;

import io.runlane.ConfigurationInvalidException;
import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.internal.jdbc.ClaimedRun;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RunContext} of one attempt. Heartbeats update it from another thread: cancellation requested by an
 * operator, or the lease lost to recovery; both tell the handler to stop (S-CA-2).
 */
final class AttemptContext implements RunContext {

    /** A release the handler asked for. */
    record Release(Duration delay, String reason) {}

    private final ClaimedRun claimed;

    private final RunlaneTemplate runlane;

    private volatile boolean cancellationRequested;

    private volatile boolean leaseLost;

    private volatile @Nullable Release release;

    AttemptContext(ClaimedRun claimed, RunlaneTemplate runlane) {
        this.claimed = claimed;
        this.runlane = runlane;
    }

    ClaimedRun claimed() {
        return claimed;
    }

    @Override
    public UUID runId() {
        return claimed.run().id();
    }

    @Override
    public String taskId() {
        return claimed.run().taskId();
    }

    @Override
    public int attempt() {
        return claimed.run().attempts();
    }

    @Override
    public boolean isCancellationRequested() {
        return cancellationRequested || leaseLost;
    }

    @Override
    public void release(Duration delay, String reason) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new ConfigurationInvalidException("delay", "must not be negative, but was " + delay);
        }
        this.release = new Release(delay, reason == null ? "released" : reason);
    }

    @Override
    public RunlaneTemplate runlane() {
        return runlane;
    }

    @Nullable
    Release requestedRelease() {
        return release;
    }

    void markCancellationRequested() {
        this.cancellationRequested = true;
    }

    void markLeaseLost() {
        this.leaseLost = true;
    }

    boolean leaseLost() {
        return leaseLost;
    }
}
