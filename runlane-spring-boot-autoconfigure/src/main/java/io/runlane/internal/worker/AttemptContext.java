package io.runlane.internal.worker;

import io.runlane.RunContext;
import io.runlane.RunlaneTemplate;
import io.runlane.StepAction;
import io.runlane.StepFunction;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.ResultSink;
import io.runlane.internal.kernel.TimeRules;
import io.runlane.internal.step.AttemptSteps;
import java.time.Duration;
import java.util.Optional;
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

    private final long startedNanos = System.nanoTime();

    private volatile long cancellationSeenNanos;

    private volatile boolean timedOut;

    /** The thread running the handler, while it runs; guarded by {@code this}. */
    private @Nullable Thread handlerThread;

    /** Durable steps and waits (S-ST); set by the attempt runner before the handler starts. */
    private @Nullable AttemptSteps steps;

    private volatile @Nullable Object result;

    private volatile @Nullable String resultJson;

    private volatile boolean returnedResult;

    private volatile boolean handlerReturned;

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
        TimeRules.requireDuration("delay", delay);
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
    public <R> R transactionalStep(String name, Class<R> type, StepFunction<R> fn) throws Exception {
        return steps().transactionalStep(name, type, fn);
    }

    @Override
    public void transactionalStep(String name, StepAction action) throws Exception {
        steps().transactionalStep(name, action);
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
    public <T> Optional<T> awaitSignal(String name, Class<T> type, Duration timeout) {
        return steps().awaitSignal(name, type, timeout);
    }

    @Override
    public void returned(@Nullable Object result) {
        this.result = result;
        this.returnedResult = true;
    }

    /** Whether a task function returned (its result may be {@code null}): the completion stores a result. */
    boolean returnedResult() {
        return returnedResult;
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
        handlerReturned = true;
        Thread.interrupted();
    }

    /**
     * Whether the handler has returned or thrown. From then on the attempt's outcome is being recorded, possibly
     * already committed, so a heartbeat that no longer finds the run held must not call the lease lost (S-EX-11).
     */
    boolean handlerReturned() {
        return handlerReturned;
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
