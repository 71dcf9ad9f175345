package io.runlane.internal.result;

import io.runlane.ConfigurationInvalidException;
import io.runlane.Run;
import io.runlane.RunAwaitTimeoutException;
import io.runlane.RunNotFoundException;
import io.runlane.RunStatus;
import io.runlane.internal.query.RunReads;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code runs().result} and {@code runs().awaitResult} (S-RS-2, S-RS-3): results are read from the run's row, which
 * lives as long as the run, so a retained idempotency owner answers with its result for its whole retention.
 */
public final class RunResults {

    /** How often a caller re-reads the run when no notification arrives. */
    static final Duration POLL_INTERVAL = Duration.ofSeconds(1);

    /** The longest wait for a result, about 146 years: a longer timeout waits this long (S-ID-10). */
    static final Duration LONGEST_WAIT = Duration.ofNanos(Long.MAX_VALUE / 2);

    private final RunReads reads;

    private final ResultCodec codec;

    private final RunEndings endings;

    public RunResults(RunReads reads, ResultCodec codec, RunEndings endings) {
        this.reads = reads;
        this.codec = codec;
        this.endings = endings;
    }

    public <R> Optional<R> result(UUID runId, Class<R> type) {
        Objects.requireNonNull(type, "type");
        Run run = require(runId);
        if (run.status() != RunStatus.SUCCEEDED) {
            return Optional.empty();
        }
        return Optional.ofNullable(codec.readRunResult(runId, run.resultJson(), type));
    }

    /**
     * Subscribes first, then reads, then waits for a wake-up or the poll interval and reads again, until the run is
     * terminal or the timeout passes.
     */
    public <R> R awaitResult(UUID runId, Class<R> type, Duration timeout) {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new ConfigurationInvalidException("timeout", "must not be negative, but was " + timeout);
        }
        long deadline = System.nanoTime() + (timeout.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : timeout).toNanos();
        RunEndings.Subscription subscription = endings.subscribe(runId);
        try {
            while (true) {
                Run run = require(runId);
                if (run.status().isTerminal()) {
                    return RunOutcomes.answer(run, type, codec);
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw new RunAwaitTimeoutException(runId);
                }
                subscription.await(Duration.ofNanos(Math.min(remaining, POLL_INTERVAL.toNanos())));
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new RunAwaitTimeoutException(runId);
        } finally {
            endings.unsubscribe(subscription);
        }
    }

    private Run require(UUID runId) {
        return reads.get(Objects.requireNonNull(runId, "runId")).orElseThrow(() -> new RunNotFoundException(runId));
    }
}
