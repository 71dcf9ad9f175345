package io.runlane.internal.worker;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Writes an attempt's outcome until the database takes it or refuses it (S-EX-20).
 *
 * <p>While an outcome waits, its run stays {@code RUNNING} under this worker's lease and the worker's heartbeats keep
 * extending that lease, so waiting is safe: giving up instead would leave the run to lease expiry, which runs a
 * successful handler again, or turns an intended non-retryable failure into a retryable {@code lease_expired}. A
 * write that fails is therefore tried again after a doubling delay (capped), for as long as it takes, and stops only
 * when the statement answers (the outcome was recorded, or refused because the attempt no longer holds the run), when
 * the attempt is known to have lost its lease, or when the worker gives up its pending outcomes after its shutdown
 * timeout.
 */
final class OutcomeRetries {

    private static final Log logger = LogFactory.getLog(OutcomeRetries.class);

    static final Duration FIRST_DELAY = Duration.ofMillis(100);

    static final Duration MAX_DELAY = Duration.ofSeconds(2);

    private volatile CountDownLatch givenUp = new CountDownLatch(1);

    /**
     * Runs {@code write} until it answers. Returns its answer, or empty when the write was abandoned: {@code
     * stillHeld} turned false, or the worker {@linkplain #giveUp() gave up}.
     */
    <T> Optional<T> untilAnswered(String what, Supplier<T> write, BooleanSupplier stillHeld) {
        for (int tries = 1; ; tries++) {
            try {
                return Optional.of(write.get());
            } catch (RuntimeException ex) {
                if (!stillHeld.getAsBoolean()) {
                    logger.error("Recording " + what + " failed and is abandoned: the attempt lost its lease", ex);
                    return Optional.empty();
                }
                logFailure(what, tries, ex);
                if (!awaitRetry(tries)) {
                    logger.error("Recording " + what + " is abandoned: the worker stopped past its shutdown timeout;"
                            + " lease expiry will recover the run");
                    return Optional.empty();
                }
            }
        }
    }

    /** Logs the first failure of a write and every tenth after it, so an outage does not flood the log. */
    void logFailure(String what, int tries, RuntimeException ex) {
        if (tries == 1 || tries % 10 == 0) {
            logger.warn("Recording " + what + " failed " + tries + " time(s); retrying while the lease is held", ex);
        }
    }

    /** Waits before retry number {@code tries} + 1; returns {@code false}, at once, when the worker gave up. */
    boolean awaitRetry(int tries) {
        return await(delay(tries));
    }

    /** The pause after {@code tries} failed tries: {@link #FIRST_DELAY}, doubling per try up to {@link #MAX_DELAY}. */
    Duration delay(int tries) {
        Duration delay = FIRST_DELAY;
        for (int i = 1; i < tries && delay.compareTo(MAX_DELAY) < 0; i++) {
            delay = delay.multipliedBy(2);
        }
        return delay.compareTo(MAX_DELAY) > 0 ? MAX_DELAY : delay;
    }

    /** Waits {@code delay}; returns {@code false}, at once, when the worker gave up. */
    boolean await(Duration delay) {
        try {
            return !givenUp.await(delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Ends every wait: pending outcomes are abandoned to lease expiry (the worker stopped past its timeout). */
    void giveUp() {
        givenUp.countDown();
    }

    /** Retries again, for a worker started again after it stopped. */
    void resume() {
        if (givenUp()) {
            givenUp = new CountDownLatch(1);
        }
    }

    boolean givenUp() {
        return givenUp.getCount() == 0;
    }
}
