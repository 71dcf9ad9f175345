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

    private final long startedNanos = System.nanoTime();

    private volatile long cancellationSeenNanos;

    private volatile boolean timedOut;

    /** The thread running the handler, while it runs; guarded by {@code this}. */
    private @Nullable Thread handlerThread;

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
        if (!cancellationRequested) {
            cancellationSeenNanos = System.nanoTime();
            this.cancellationRequested = true;
        }
    }

    /** How long ago this worker learned that cancellation was requested, or {@code null} if it was not. */
    @Nullable
    Duration cancellationRequestedFor() {
        return cancellationRequested ? Duration.ofNanos(System.nanoTime() - cancellationSeenNanos) : null;
    }

    /** How long the attempt has been running on this worker. */
    Duration runningFor() {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    synchronized void handlerStarted() {
        handlerThread = Thread.currentThread();
    }

    /**
     * The handler returned or threw: clears an interrupt meant for it (by an attempt timeout, or by the handler
     * itself), so the pooled thread starts its next attempt uninterrupted (S-EX-22).
     */
    synchronized void handlerEnded() {
        handlerThread = null;
        Thread.interrupted();
    }

    /** Interrupts the handler's thread if the handler is still running. */
    synchronized void interruptHandler() {
        if (handlerThread != null) {
            handlerThread.interrupt();
        }
    }

    /**
     * The attempt's outcome was recorded as timed out: the handler is told to stop, heartbeats no longer count the
     * attempt as held, and whatever the handler does later is not recorded.
     */
    void markTimedOut() {
        this.timedOut = true;
        this.leaseLost = true;
    }

    boolean timedOut() {
        return timedOut;
    }

    void markLeaseLost() {
        this.leaseLost = true;
    }

    boolean leaseLost() {
        return leaseLost;
    }
}
