package io.runlane.internal.worker;

import io.runlane.ConfigurationInvalidException;
import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.StepAction;
import io.runlane.StepFunction;
import io.runlane.internal.jdbc.ClaimedRun;
import io.runlane.internal.result.ResultSink;
import io.runlane.internal.step.AttemptSteps;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RunContext} of one attempt. Heartbeats update it from another thread: cancellation requested by an
 * operator, or the lease lost to recovery; both tell the handler to stop (S-CA-2).
 */
final class AttemptContext implements RunContext, ResultSink {

    /** A release the handler asked for. */
    record Release(Duration delay, String reason) {}

    private final ClaimedRun claimed;

    private final RunlaneTemplate runlane;

    private volatile boolean cancellationRequested;

    private volatile boolean leaseLost;

    private volatile @Nullable Release release;

    /** Durable steps and waits (S-ST); set by the attempt runner before the handler starts. */
    private @Nullable AttemptSteps steps;

    private volatile @Nullable Object result;

    private volatile @Nullable String resultJson;

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

    @Override
    public <R> R step(String name, Class<R> type, StepFunction<R> fn) throws Exception {
        return steps().step(name, type, fn);
    }

    @Override
    public void step(String name, StepAction action) throws Exception {
        steps().step(name, action);
    }

    @Override
    public void sleep(String name, Duration duration) {
        steps().sleep(name, duration);
    }

    @Override
    public <R> R awaitResult(UUID runId, Class<R> type, Duration timeout) {
        return steps().awaitResult(runId, type, timeout);
    }

    @Override
    public void returned(@Nullable Object result) {
        this.result = result;
    }

    /** What a task function returned, or {@code null}. */
    @Nullable
    Object result() {
        return result;
    }

    /** The result as JSON, to be stored with the completion (S-RS-1). */
    @Nullable
    String resultJson() {
        return resultJson;
    }

    void resultJson(String json) {
        this.resultJson = json;
    }

    void steps(AttemptSteps steps) {
        this.steps = steps;
    }

    AttemptSteps steps() {
        AttemptSteps attemptSteps = steps;
        if (attemptSteps == null) {
            throw new IllegalStateException("Steps can only be called while the handler runs (S-ST-5)");
        }
        return attemptSteps;
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
