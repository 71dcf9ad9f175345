package io.runlane.internal.step;

import io.runlane.ConfigurationInvalidException;
import io.runlane.Run;
import io.runlane.RunAwaitTimeoutException;
import io.runlane.RunNotFoundException;
import io.runlane.StepAction;
import io.runlane.StepContext;
import io.runlane.StepFunction;
import io.runlane.internal.kernel.KeyRules;
import io.runlane.internal.kernel.TimeRules;
import io.runlane.internal.query.RunReads;
import io.runlane.internal.result.ResultCodec;
import io.runlane.internal.signal.ReceivedSignal;
import io.runlane.internal.signal.SignalInbox;
import io.runlane.internal.wait.AttemptSuspended;
import io.runlane.internal.wait.WaitRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The durable steps, sleeps and waits of one attempt (S-ST-1..7, S-RS-4). Each call:
 *
 * <ol>
 *   <li>checks that it runs on the handler's thread, while the handler runs, outside another step (S-ST-5);
 *   <li>takes the next occurrence of its name, counted per name during this execution of the handler, so that
 *       every execution of a deterministic handler gives each call the same identity (S-ST-2);
 *   <li>returns the recorded result when the step completed before, converted with the application's JSON mapper
 *       (a result that no longer converts fails the run: {@code step_result_incompatible}, S-ST-4);
 *   <li>otherwise runs the step and records its result fenced by the claim ({@link StepStore}), with the steps other
 *       attempts record at the same moment ({@link StepRecorder}, S-ST-16); a recording that finds the attempt fenced
 *       out ends the attempt ({@link AttemptFencedOut}).
 * </ol>
 *
 * A sleep is a step whose result is its wake-up time (database clock); an await records its deadline the same way
 * and then, once the awaited run ended or the deadline passed, its outcome. When they have to wait they throw
 * {@link AttemptSuspended}, and the request is also kept here so that a handler that swallows the error still parks.
 */
public final class AttemptSteps {

    /** Name prefix of the steps that memoize {@code awaitSignal} (S-SG-4). */
    static final String SIGNAL_PREFIX = "awaitSignal.";

    /** Name prefix of the steps that memoize {@code awaitResult}; {@code .} keeps them valid keys (S-ID-1). */
    static final String AWAIT_PREFIX = "awaitResult.";

    private final StepStore store;

    private final StepRecorder recorder;

    private final TransactionalSteps transactional;

    private final SignalInbox signals;

    private final RunReads reads;

    private final ResultCodec codec;

    private final UUID runId;

    private final long token;

    private final String worker;

    private final Map<String, Integer> occurrences = new HashMap<>();

    private volatile @Nullable Thread handlerThread;

    private boolean inStep;

    private volatile @Nullable WaitRequest suspension;

    private volatile boolean fencedOut;

    /** The results recorded before this attempt, read once at the first step; none for a run's first attempt. */
    private @Nullable Map<String, StepStore.StoredResult> recordedBefore;

    /**
     * @param firstAttempt whether no step can precede this attempt (a run's first attempt, unless the run is a fork,
     *     S-RV-3): its steps skip the read of earlier results
     */
    AttemptSteps(
            StepStore store,
            StepRecorder recorder,
            TransactionalSteps transactional,
            SignalInbox signals,
            RunReads reads,
            ResultCodec codec,
            UUID runId,
            long token,
            String worker,
            boolean firstAttempt) {
        this.recordedBefore = firstAttempt ? Map.of() : null;
        this.store = store;
        this.recorder = recorder;
        this.transactional = transactional;
        this.signals = signals;
        this.reads = reads;
        this.codec = codec;
        this.runId = runId;
        this.token = token;
        this.worker = worker;
    }

    /** The handler starts on the current thread: steps may be called from it until {@link #handlerEnded()}. */
    public void handlerStarted() {
        handlerThread = Thread.currentThread();
    }

    public void handlerEnded() {
        handlerThread = null;
    }

    /** The wait the handler asked for, if any: the attempt ends by parking the run. */
    public @Nullable WaitRequest suspension() {
        return suspension;
    }

    /** Whether a step found the attempt fenced out: the attempt ends without an outcome. */
    public boolean fencedOut() {
        return fencedOut;
    }

    public <R> @Nullable R step(String name, Class<R> type, StepFunction<R> fn) throws Exception {
        enter(name);
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(fn, "fn");
        int occurrence = next(name);
        Optional<StepStore.StoredResult> stored = recorded(name, occurrence);
        if (stored.isPresent()) {
            return read(name, occurrence, stored.get().json(), type);
        }
        R result = call(name, occurrence, fn);
        return record(name, occurrence, codec.write(result), type);
    }

    public void step(String name, StepAction action) throws Exception {
        enter(name);
        Objects.requireNonNull(action, "action");
        int occurrence = next(name);
        if (recorded(name, occurrence).isPresent()) {
            return;
        }
        call(name, occurrence, step -> {
            action.run(step);
            return null;
        });
        record(name, occurrence, null, Object.class);
    }

    /**
     * A transactional step (S-ST-8): memoized like {@link #step(String, Class, StepFunction)} (a recorded result
     * returns without opening a transaction); otherwise runs and records in one transaction ({@link
     * TransactionalSteps}).
     */
    public <R> @Nullable R transactionalStep(String name, Class<R> type, StepFunction<R> fn) throws Exception {
        enter(name);
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(fn, "fn");
        int occurrence = next(name);
        Optional<StepStore.StoredResult> stored = recorded(name, occurrence);
        if (stored.isPresent()) {
            return read(name, occurrence, stored.get().json(), type);
        }
        String json = inTransaction(name, occurrence, () -> codec.write(call(name, occurrence, fn)));
        return read(name, occurrence, json, type);
    }

    public void transactionalStep(String name, StepAction action) throws Exception {
        enter(name);
        Objects.requireNonNull(action, "action");
        int occurrence = next(name);
        if (recorded(name, occurrence).isPresent()) {
            return;
        }
        inTransaction(name, occurrence, () -> {
            call(name, occurrence, step -> {
                action.run(step);
                return null;
            });
            return null;
        });
    }

    private @Nullable String inTransaction(String name, int occurrence, TransactionalSteps.Body body) throws Exception {
        try {
            return transactional.runAndRecord(
                    runId,
                    token,
                    worker,
                    name,
                    occurrence,
                    StepIds.stepId(runId, name, occurrence),
                    body,
                    () -> fencedOut = true);
        } catch (AttemptFencedOut ex) {
            fencedOut = true;
            throw ex;
        }
    }

    public void sleep(String name, Duration duration) {
        enter(name);
        TimeRules.requireDuration("duration", duration);
        int occurrence = next(name);
        Instant wakeAt = timer(name, occurrence, duration);
        if (store.now().isBefore(wakeAt)) {
            throw suspend(WaitRequest.until(wakeAt, "sleep '" + name + "' until " + wakeAt));
        }
    }

    public <R> @Nullable R awaitResult(UUID awaited, Class<R> type, Duration timeout) {
        Objects.requireNonNull(awaited, "runId");
        String name = AWAIT_PREFIX + awaited;
        enter(name);
        Objects.requireNonNull(type, "type");
        TimeRules.requireDuration("timeout", timeout);
        if (awaited.equals(runId)) {
            throw new ConfigurationInvalidException("runId", "must not be the awaiting run itself (" + runId + ")");
        }
        int occurrence = next(name);
        // counted whether or not the outcome is recorded, so that a later await of this name replays its own deadline
        int deadlineOccurrence = next(name + ".deadline");
        Optional<StepStore.StoredResult> outcome = recorded(name, occurrence);
        if (outcome.isEmpty()) {
            Instant deadline = timer(name + ".deadline", deadlineOccurrence, timeout);
            Run run = reads.get(awaited).orElseThrow(() -> new RunNotFoundException(awaited));
            AwaitedOutcome ended;
            if (run.status().isTerminal()) {
                ended = AwaitedOutcome.of(run, codec);
            } else if (!store.now().isBefore(deadline)) {
                ended = AwaitedOutcome.timedOut();
            } else {
                throw suspend(WaitRequest.forRun(awaited, deadline, "awaiting run " + awaited + " until " + deadline));
            }
            outcome = Optional.of(new StepStore.StoredResult(recordJson(name, occurrence, codec.write(ended))));
        }
        AwaitedOutcome ended = read(name, occurrence, outcome.get().json(), AwaitedOutcome.class);
        if (ended == null || ended.status() == null) {
            throw new StepResultIncompatibleException(
                    name, occurrence, AwaitedOutcome.class, new IllegalStateException("no recorded outcome"));
        }
        if (ended.status().equals(AwaitedOutcome.TIMED_OUT)) {
            throw new RunAwaitTimeoutException(awaited);
        }
        return ended.answer(awaited, type, codec, name, occurrence);
    }

    /**
     * Consumes the oldest unconsumed signal of this name (S-SG-4), memoized as the step {@code awaitSignal.<name>}:
     * the consumption and its record are one statement ({@link SignalInbox}). With none, and before the deadline
     * (recorded the first time, like an await's), the run parks waiting for the name; after it, the step records
     * that it timed out.
     */
    public <T> Optional<T> awaitSignal(String signalName, Class<T> type, Duration timeout) {
        KeyRules.requireValid("name", signalName);
        String name = SIGNAL_PREFIX + signalName;
        enter(name);
        Objects.requireNonNull(type, "type");
        TimeRules.requireDuration("timeout", timeout);
        int occurrence = next(name);
        // counted whether or not the signal is recorded, so that a later await of this name replays its own deadline
        int deadlineOccurrence = next(name + ".deadline");
        Optional<StepStore.StoredResult> stored = recorded(name, occurrence);
        String json;
        if (stored.isPresent()) {
            json = stored.get().json();
        } else {
            Instant deadline = timer(name + ".deadline", deadlineOccurrence, timeout);
            SignalInbox.Consumption consumed = signals.consumeIfHeld(
                    runId, token, worker, signalName, name, occurrence, StepIds.stepId(runId, name, occurrence));
            if (!consumed.held()) {
                fencedOut = true;
                throw new AttemptFencedOut(runId, name);
            }
            if (consumed.resultJson() != null) {
                json = consumed.resultJson();
            } else if (!store.now().isBefore(deadline)) {
                json = recordJson(name, occurrence, codec.write(ReceivedSignal.timeout()));
            } else {
                throw suspend(WaitRequest.forSignal(
                        signalName, deadline, "awaiting signal '" + signalName + "' until " + deadline));
            }
        }
        ReceivedSignal received = read(name, occurrence, json, ReceivedSignal.class);
        if (received == null || !received.received()) {
            return Optional.empty();
        }
        JsonNode payload = received.payload();
        try {
            return payload == null || payload.isNull()
                    ? Optional.empty()
                    : Optional.ofNullable(codec.mapper().treeToValue(payload, type));
        } catch (JacksonException ex) {
            throw new StepResultIncompatibleException(name, occurrence, type, ex);
        }
    }

    /** A memoized wake-up time: recorded as now + {@code duration} (database clock) the first time. */
    private Instant timer(String name, int occurrence, Duration duration) {
        Optional<StepStore.StoredResult> stored = recorded(name, occurrence);
        if (stored.isPresent()) {
            return Objects.requireNonNull(read(name, occurrence, stored.get().json(), Instant.class));
        }
        Instant wakeAt = store.now().plus(duration);
        return Objects.requireNonNull(record(name, occurrence, codec.write(wakeAt), Instant.class));
    }

    /** A result recorded before this attempt; one read per attempt, at its first step. */
    private Optional<StepStore.StoredResult> recorded(String name, int occurrence) {
        Map<String, StepStore.StoredResult> before = recordedBefore;
        if (before == null) {
            before = store.results(runId);
            recordedBefore = before;
        }
        return Optional.ofNullable(before.get(StepStore.key(name, occurrence)));
    }

    private <R> @Nullable R call(String name, int occurrence, StepFunction<R> fn) throws Exception {
        inStep = true;
        try {
            return fn.apply(new Step(runId, name, occurrence, StepIds.stepId(runId, name, occurrence)));
        } finally {
            inStep = false;
        }
    }

    /** Records a result and returns the recorded one: this call's, or a concurrent winner's. */
    private <R> @Nullable R record(String name, int occurrence, @Nullable String json, Class<R> type) {
        return read(name, occurrence, recordJson(name, occurrence, json), type);
    }

    private @Nullable String recordJson(String name, int occurrence, @Nullable String json) {
        String stepId = StepIds.stepId(runId, name, occurrence);
        if (recorder.recordIfHeld(new StepRecord(runId, token, worker, name, occurrence, stepId, json))) {
            return json;
        }
        Optional<StepStore.StoredResult> winner = store.find(runId, name, occurrence);
        if (winner.isPresent()) {
            return winner.get().json();
        }
        fencedOut = true;
        throw new AttemptFencedOut(runId, name);
    }

    private <R> @Nullable R read(String name, int occurrence, @Nullable String json, Class<R> type) {
        try {
            return codec.read(json, type);
        } catch (JacksonException ex) {
            throw new StepResultIncompatibleException(name, occurrence, type, ex);
        }
    }

    /** Remembers the wait on the attempt and returns the error that unwinds the handler. */
    private AttemptSuspended suspend(WaitRequest request) {
        suspension = request;
        return new AttemptSuspended(request);
    }

    private void enter(String name) {
        if (Thread.currentThread() != handlerThread) {
            throw new IllegalStateException("Steps can only be called on the handler's thread while the handler runs"
                    + " (S-ST-5); step '" + name + "' was called "
                    + (handlerThread == null
                            ? "after the handler returned"
                            : "from thread " + Thread.currentThread().getName()));
        }
        if (inStep) {
            throw new IllegalStateException(
                    "Steps run one at a time: step '" + name + "' was called inside another" + " step (S-ST-5)");
        }
        WaitRequest waiting = suspension;
        if (waiting != null) {
            throw new AttemptSuspended(waiting);
        }
        if (fencedOut) {
            throw new AttemptFencedOut(runId, name);
        }
        KeyRules.requireValid("name", name);
    }

    private int next(String name) {
        return occurrences.merge(name, 1, Integer::sum);
    }

    private record Step(UUID runId, String name, int occurrence, String stepId) implements StepContext {}
}
