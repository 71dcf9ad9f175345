package io.runlane.internal.worker;

import io.runlane.RunStatus;
import io.runlane.internal.kernel.EngineListener;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Records the completions of a worker's attempts in batches, on a thread of its own.
 *
 * <p>A slot whose handler returned hands its completion to this writer and is free at once; the writer takes every
 * completion waiting, up to {@value #MAX_BATCH}, and records them in one statement ({@link BatchCompletions}).
 * With short handlers, completions arrive while the previous batch is written, so one statement and one commit
 * serve many runs instead of one each, and claiming the next runs never waits for a completion's round trip.
 *
 * <p>Until its batch is written a run stays {@code RUNNING} under this worker's lease, so it still counts against
 * concurrency limits (S-QC-2) and heartbeats keep extending its lease. A completion the database does not take is
 * written again until it does ({@link OutcomeRetries}, S-EX-20), so a database blip never runs a successful handler
 * twice; only a worker stopping past its shutdown timeout abandons it to lease expiry (S-EX-7). At most {@value
 * #MAX_WAITING} completions wait; a slot that would exceed that waits for the writer, so a slow database slows
 * claiming instead of filling memory.
 */
final class CompletionWriter {

    private static final Log logger = LogFactory.getLog(CompletionWriter.class);

    static final int MAX_BATCH = 500;

    static final int MAX_WAITING = 10_000;

    private static final int SMALL_BATCH = 32;

    private static final Duration GATHERING = Duration.ofMillis(1);

    private record Completion(AttemptContext context, long startedNanos, long endedNanos) {}

    private static final Completion STOP = new Completion(null, 0, 0);

    /** The result an attempt is reported with when its run moved to a status: the status's name in lower case. */
    private static final String[] RESULTS = Arrays.stream(RunStatus.values())
            .map(status -> status.name().toLowerCase(Locale.ROOT))
            .toArray(String[]::new);

    private final BatchCompletions completions;

    private final String worker;

    private final EngineListener listener;

    private final OutcomeRetries retries;

    private final RefusedOutcomes refusals;

    private final BlockingQueue<Completion> waiting = new LinkedBlockingQueue<>(MAX_WAITING);

    /** Runs whose completion was submitted and is not yet written or given up: their leases are still held. */
    private final Set<UUID> waitingRunIds = ConcurrentHashMap.newKeySet();

    /** Completions whose write failed, oldest first; only the writer's thread touches them. */
    private final Deque<Completion> retrying = new ArrayDeque<>();

    /** Failed writes since the last write that succeeded; the pause before the next retry doubles with it. */
    private int failures;

    private long nextRetryNanos;

    private @Nullable Thread thread;

    CompletionWriter(
            BatchCompletions completions,
            String worker,
            EngineListener listener,
            OutcomeRetries retries,
            RefusedOutcomes refusals) {
        this.refusals = refusals;
        this.completions = completions;
        this.retries = retries;
        this.worker = worker;
        this.listener = listener;
    }

    void start(ThreadFactory threads) {
        retries.resume();
        thread = threads.newThread(this::writeUntilStopped);
        thread.start();
    }

    boolean isAlive() {
        Thread current = thread;
        return current != null && current.isAlive();
    }

    /** Starts a new writing thread if the writer was started and its thread died (S-MO-4); returns whether. */
    boolean restartIfDead(ThreadFactory threads) {
        if (thread == null || thread.isAlive()) {
            return false;
        }
        start(threads);
        return true;
    }

    /** Records, soon, that the attempt's handler returned {@code startedNanos} ago ({@link System#nanoTime}). */
    void submit(AttemptContext context, long startedNanos) {
        waitingRunIds.add(context.runId());
        put(new Completion(context, startedNanos, System.nanoTime()));
    }

    /** The runs whose completion is waiting to be written; the worker keeps extending their leases. */
    Set<UUID> waitingRunIds() {
        return waitingRunIds;
    }

    /**
     * Writes every completion submitted so far, then ends the writer's thread. Completions still failing after
     * {@code timeout} are abandoned to lease expiry.
     */
    void stop(Duration timeout) {
        if (thread == null) {
            return;
        }
        put(STOP);
        try {
            thread.join(timeout.toMillis());
            if (thread.isAlive()) {
                retries.giveUp();
                thread.join(timeout.toMillis());
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void put(Completion completion) {
        boolean interrupted = false;
        while (true) {
            try {
                waiting.put(completion);
                break;
            } catch (InterruptedException ex) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Takes and writes batches until stopped. Completions whose batch failed wait in {@link #retrying} and are
     * written one by one once their pause is over, while new batches keep being written meanwhile; on stop, the
     * writer keeps retrying them until they are answered or the worker gives up.
     */
    private void writeUntilStopped() {
        List<Completion> batch = new ArrayList<>();
        boolean stopping = false;
        while (true) {
            batch.clear();
            if (stopping) {
                if (retrying.isEmpty()) {
                    return;
                }
                if (!retries.await(untilNextRetry())) {
                    abandonRetrying();
                    return;
                }
            } else {
                Completion first;
                try {
                    first = retrying.isEmpty()
                            ? waiting.take()
                            : waiting.poll(untilNextRetry().toNanos(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException ex) {
                    return;
                }
                if (first != null) {
                    batch.add(first);
                    gather(batch);
                    stopping = batch.remove(STOP);
                    if (stopping) {
                        waiting.drainTo(batch);
                        batch.remove(STOP);
                    }
                }
            }
            if (!batch.isEmpty()) {
                try {
                    write(batch);
                } catch (Throwable ex) {
                    // The writer must outlive anything a batch throws; those runs' leases expire and are retried.
                    logger.error("Recording the completion of " + batch.size() + " run(s) failed", ex);
                }
            }
            retryDue();
        }
    }

    /**
     * Adds the completions waiting behind the first, and those arriving within {@link #GATHERING} while the batch
     * is smaller than {@link #SMALL_BATCH}: a few more runs per statement cost the database far less than another
     * statement, and the slots are already free.
     */
    private void gather(List<Completion> batch) {
        waiting.drainTo(batch, MAX_BATCH - batch.size());
        long deadline = System.nanoTime() + GATHERING.toNanos();
        long nanos;
        while (batch.size() < SMALL_BATCH && !batch.contains(STOP) && (nanos = deadline - System.nanoTime()) > 0) {
            Completion next;
            try {
                next = waiting.poll(nanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            if (next == null) {
                return;
            }
            batch.add(next);
            waiting.drainTo(batch, MAX_BATCH - batch.size());
        }
    }

    /** Writes the batch in one statement; if that fails, its completions are retried one by one. */
    private void write(List<Completion> batch) {
        Map<UUID, RunStatus> completed;
        try {
            completed = completions.complete(held(batch), worker);
        } catch (RuntimeException ex) {
            logger.warn("Recording the completion of " + batch.size() + " run(s) failed; retrying them one by one", ex);
            retrying.addAll(batch);
            return;
        }
        report(batch, completed);
    }

    /**
     * Once the pause after the last failure is over, writes the completions waiting for a retry one by one, each in
     * its own statement, until one fails: that one moves to the back and the pause doubles ({@link OutcomeRetries}).
     * One completion that keeps failing therefore holds back only itself, and during an outage each pause costs one
     * failed statement, not one per completion.
     */
    private void retryDue() {
        if (retrying.isEmpty() || !untilNextRetry().isZero()) {
            return;
        }
        for (int left = retrying.size(); left > 0; left--) {
            Completion next = retrying.removeFirst();
            List<Completion> one = List.of(next);
            try {
                report(one, completions.complete(held(one), worker));
            } catch (RuntimeException ex) {
                retrying.addLast(next);
                failures++;
                retries.logFailure("the completion of " + retrying.size() + " run(s)", failures, ex);
                nextRetryNanos = System.nanoTime() + retries.delay(failures).toNanos();
                return;
            }
        }
        failures = 0;
    }

    private Duration untilNextRetry() {
        return Duration.ofNanos(Math.max(0, nextRetryNanos - System.nanoTime()));
    }

    private void abandonRetrying() {
        logger.error("Recording the completion of " + retrying.size() + " run(s) is abandoned: the worker stopped"
                + " past its shutdown timeout; lease expiry will recover them");
        retrying.forEach(completion -> waitingRunIds.remove(completion.context().runId()));
        retrying.clear();
    }

    /** Reports the written completions; those missing from {@code completed} were refused (fenced). */
    private void report(List<Completion> written, Map<UUID, RunStatus> completed) {
        for (Completion completion : written) {
            AttemptContext context = completion.context();
            waitingRunIds.remove(context.runId());
            Duration took = Duration.ofNanos(completion.endedNanos() - completion.startedNanos());
            RunStatus status = completed.get(context.runId());
            if (status == null) {
                listener.attemptEnded(context.claimed(), refusals.refused(context, "Completion"), took);
            } else {
                listener.attemptEnded(context.claimed(), resultOf(status), took);
            }
        }
    }

    /** The result an attempt whose outcome moved its run to {@code status} is reported with ({@link EngineListener}). */
    static String resultOf(RunStatus status) {
        return RESULTS[status.ordinal()];
    }

    private static List<BatchCompletions.HeldAttempt> held(List<Completion> batch) {
        List<BatchCompletions.HeldAttempt> attempts = new ArrayList<>(batch.size());
        for (Completion completion : batch) {
            attempts.add(new BatchCompletions.HeldAttempt(
                    completion.context().runId(),
                    completion.context().claimed().fencingToken(),
                    completion.context().resultJson()));
        }
        return attempts;
    }
}
