package io.runlane;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * What a running handler knows about its attempt, and the durable steps and waits it can take. The run id is stable
 * across attempts, which makes it the idempotency key to pass to external APIs; a step's {@link StepContext#stepId()}
 * is the same for each step.
 *
 * <p>Steps, sleeps and waits may only be called on the handler's thread while the handler runs, one at a time
 * (S-ST-5). A sleep or wait that has to wait ends the attempt by throwing an internal {@link Error}: let it
 * propagate (do not catch {@link Throwable}); the run is {@code WAITING} and runs again from the start when it wakes,
 * replaying its completed steps.
 */
public interface RunContext {

    /** The run's id; the same for every attempt of the run. */
    UUID runId();

    /** The task id. */
    String taskId();

    /** The attempt number, starting at 1. */
    int attempt();

    /** Whether an operator asked for this run to be cancelled; the handler should return soon. */
    boolean isCancellationRequested();

    /** Ends the attempt as a release when the handler returns: the same run runs again after {@code delay}. */
    void release(Duration delay, String reason);

    /** The template, to trigger other tasks from inside a run. */
    RunlaneTemplate runlane();

    /**
     * A durable step (S-ST-1..5): the first time this step (name and occurrence) is reached in the run, calls
     * {@code fn} and records its result before returning it; every later time (another attempt, after a wait or a
     * crash, on another instance) returns the recorded result without calling {@code fn}. An exception from {@code
     * fn} records nothing and propagates.
     *
     * @param name the step's name, a valid key under S-ID-1
     * @param type the result type the recorded JSON is read back as
     * @throws InvalidKeyException for an invalid name
     * @throws IllegalStateException when called from another thread, inside another step, or after the handler
     *     returned
     */
    <R> R step(String name, Class<R> type, StepFunction<R> fn) throws Exception;

    /** A durable step without a result; see {@link #step(String, Class, StepFunction)}. */
    void step(String name, StepAction action) throws Exception;

    /**
     * A transactional step (S-ST-8): like {@link #step(String, Class, StepFunction)}, but {@code fn} runs inside a
     * transaction on Runlane's {@code DataSource}, through the transaction manager Runlane uses, and the step is
     * recorded in that same transaction after the attempt's claim was checked under the run's row lock. So {@code
     * JdbcTemplate}, {@code JdbcClient} or JPA on that {@code DataSource} join it, and the step's database effects
     * commit together with its record or not at all: they happen exactly once per run. Effects on other data sources
     * or external systems are not covered (use {@link #step(String, Class, StepFunction)} with its step id as an
     * idempotency key). A recorded step returns its result without opening a transaction. An exception from {@code
     * fn} (a statement or lock timeout included) rolls everything back and propagates, like a failing step. The
     * transaction runs at {@code READ COMMITTED}; it joins a transaction the handler opened itself on that
     * {@code DataSource}, and then commits with it. Keep it short: it holds the run's row lock, which a lease
     * takeover waits for.
     *
     * @param name the step's name, a valid key under S-ID-1
     * @param type the result type the recorded JSON is read back as
     * @throws InvalidKeyException for an invalid name
     * @throws IllegalStateException when called from another thread, inside another step, or after the handler
     *     returned
     */
    <R> R transactionalStep(String name, Class<R> type, StepFunction<R> fn) throws Exception;

    /** A transactional step without a result; see {@link #transactionalStep(String, Class, StepFunction)}. */
    void transactionalStep(String name, StepAction action) throws Exception;

    /**
     * A durable sleep (S-ST-7): the first time it is reached it records its wake-up time ({@code duration} from now,
     * database clock) and ends the attempt; the run is {@code WAITING} until then, holding no slot, lease or queue
     * capacity and spending no retry budget. Reached again at or after that time it returns at once.
     */
    void sleep(String name, Duration duration);

    /**
     * Waits durably for another run to end (S-RS-4) and returns its result, or throws {@link RunFailedException},
     * {@link RunCancelledException} or {@link RunAwaitTimeoutException} (after {@code timeout} from the first time
     * this wait was reached). While the awaited run is active this run is {@code WAITING}, holding no slot, lease or
     * queue capacity, so a parent may await a child in the same queue whatever its concurrency limit. The answer is
     * memoized like a step: replays answer the same.
     *
     * @throws RunNotFoundException when the awaited run does not exist in this environment
     */
    <R> R awaitResult(UUID runId, Class<R> type, Duration timeout);

    /**
     * Waits durably for a signal of this name (S-SG-4) and returns its payload converted to {@code type}, or empty
     * when {@code timeout} (from the first time this wait was reached) passed first. It consumes the oldest
     * unconsumed signal of the name, including one sent before the wait was reached or before the run started.
     * While none is there this run is {@code WAITING}, holding no slot, lease or queue capacity. The answer is
     * memoized like a step: replays get the same signal, and no signal is consumed twice.
     */
    <T> Optional<T> awaitSignal(String name, Class<T> type, Duration timeout);
}
