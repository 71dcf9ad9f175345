package io.runlane.internal.worker;

import io.runlane.RunStatus;
import io.runlane.internal.EngineListener;
import io.runlane.internal.jdbc.BatchCompletions;
import java.time.Duration;
import java.util.ArrayList;
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
 * concurrency limits (S-QC-2) and heartbeats keep extending its lease. A completion the writer could not record
 * (the database was unreachable for every retry) is logged and left to lease expiry, which retries the run
 * (S-EX-7), exactly as if the worker had died. At most {@value #MAX_WAITING} completions wait; a slot that would
 * exceed that waits for the writer, so a slow database slows claiming instead of filling memory.
 */
final class CompletionWriter {

    private static final Log logger = LogFactory.getLog(CompletionWriter.class);

    static final int MAX_BATCH = 500;

    static final int MAX_WAITING = 10_000;

    private static final int SMALL_BATCH = 32;

    private static final Duration GATHERING = Duration.ofMillis(1);

    private static final int ATTEMPTS_PER_BATCH = 5;

    private static final Duration RETRY_DELAY = Duration.ofMillis(200);

    private record Completion(AttemptContext context, long startedNanos, long endedNanos) {}

    private static final Completion STOP = new Completion(null, 0, 0);

    private final BatchCompletions completions;

    private final String worker;

    private final EngineListener listener;

    private final BlockingQueue<Completion> waiting = new LinkedBlockingQueue<>(MAX_WAITING);

    /** Runs whose completion was submitted and is not yet written or given up: their leases are still held. */
    private final Set<UUID> waitingRunIds = ConcurrentHashMap.newKeySet();

    private @Nullable Thread thread;

    CompletionWriter(BatchCompletions completions, String worker, EngineListener listener) {
        this.completions = completions;
        this.worker = worker;
        this.listener = listener;
    }

    void start(ThreadFactory threads) {
        thread = threads.newThread(this::writeUntilStopped);
        thread.start();
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

    /** Writes every completion submitted so far, then ends the writer's thread. */
    void stop(Duration timeout) {
        if (thread == null) {
            return;
        }
        put(STOP);
        try {
            thread.join(timeout.toMillis());
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

    private void writeUntilStopped() {
        List<Completion> batch = new ArrayList<>();
        while (true) {
            Completion first;
            try {
                first = waiting.take();
            } catch (InterruptedException ex) {
                return;
            }
            batch.clear();
            batch.add(first);
            gather(batch);
            boolean stopping = batch.remove(STOP);
            if (!batch.isEmpty()) {
                write(batch);
            }
            if (stopping) {
                List<Completion> rest = new ArrayList<>();
                waiting.drainTo(rest);
                if (!rest.isEmpty()) {
                    write(rest);
                }
                return;
            }
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

    private void write(List<Completion> batch) {
        try {
            writeOrGiveUp(batch);
        } finally {
            batch.forEach(
                    completion -> waitingRunIds.remove(completion.context().runId()));
        }
    }

    private void writeOrGiveUp(List<Completion> batch) {
        List<BatchCompletions.HeldAttempt> attempts = new ArrayList<>(batch.size());
        for (Completion completion : batch) {
            attempts.add(new BatchCompletions.HeldAttempt(
                    completion.context().runId(),
                    completion.context().claimed().fencingToken(),
                    completion.context().resultJson()));
        }
        Map<UUID, RunStatus> completed = null;
        for (int attempt = 1; completed == null && attempt <= ATTEMPTS_PER_BATCH; attempt++) {
            try {
                completed = completions.complete(attempts, worker);
            } catch (RuntimeException ex) {
                if (attempt == ATTEMPTS_PER_BATCH) {
                    logger.error(
                            "Recording the completion of " + batch.size() + " run(s) failed " + attempt
                                    + " times; their leases will expire and recovery will retry them",
                            ex);
                    return;
                }
                logger.warn("Recording the completion of " + batch.size() + " run(s) failed; retrying", ex);
                sleep(RETRY_DELAY.multipliedBy(attempt));
            }
        }
        for (Completion completion : batch) {
            AttemptContext context = completion.context();
            Duration took = Duration.ofNanos(completion.endedNanos() - completion.startedNanos());
            RunStatus status = completed.get(context.runId());
            if (status == null) {
                logger.warn("Completion of run " + context.runId() + " attempt " + context.attempt()
                        + " was refused: the attempt no longer holds the run (lease lost or run cancelled)");
                listener.attemptEnded(context.claimed(), "lease_lost", took);
            } else {
                listener.attemptEnded(context.claimed(), status.name().toLowerCase(Locale.ROOT), took);
            }
        }
    }

    private static void sleep(Duration delay) {
        try {
            TimeUnit.MILLISECONDS.sleep(delay.toMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
