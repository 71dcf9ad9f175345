package io.runlane.internal.kernel;

import io.runlane.ConfigurationInvalidException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * How runs execute: the worker, retries, queue concurrency limits and recovery. Free of Spring Boot types, like
 * {@link RunlaneSettings}; defaults match the documented configuration.
 *
 * @param workerEnabled whether this instance claims and executes runs
 * @param concurrency attempts this instance executes at once
 * @param pollInterval how often an idle worker looks for due runs (jittered); notifications wake it sooner
 * @param leaseDuration how long a claim is valid without a heartbeat (S-EX-2)
 * @param heartbeatInterval how often leases of running attempts are extended (S-EX-2)
 * @param shutdownTimeout how long a stopping worker waits for running attempts (S-EX-8)
 * @param queues the queues this instance consumes; empty means all declared queues
 * @param initialBackoff the first exponential retry delay (S-EX-4)
 * @param maxBackoff the cap of the exponential retry delay (S-EX-4)
 * @param concurrencyLimits queue name to the most runs running at once across all instances (S-QC-2)
 * @param maxFailureMessageLength failure messages are truncated to this many characters (S-EX-5)
 * @param recoveryInterval how often maintenance recovers expired leases (S-EX-7)
 * @param recoveryBatchSize expired leases recovered per statement batch
 * @param attemptTimeout how long one attempt of a task without its own timeout may run, or {@code null} for no limit
 *     (S-EX-21)
 * @param cancellationGrace how long a run asked to stop may keep running before maintenance cancels it (S-CA-5)
 * @param startOnTrigger whether a trigger may store its run already claimed by this instance's running worker, to start
 *     on a free slot after the trigger's commit (S-EX-36)
 */
public record ExecutionSettings(
        boolean workerEnabled,
        int concurrency,
        Duration pollInterval,
        Duration leaseDuration,
        Duration heartbeatInterval,
        Duration shutdownTimeout,
        Set<String> queues,
        Duration initialBackoff,
        Duration maxBackoff,
        Map<String, Integer> concurrencyLimits,
        int maxFailureMessageLength,
        Duration recoveryInterval,
        int recoveryBatchSize,
        @Nullable Duration attemptTimeout,
        Duration cancellationGrace,
        boolean startOnTrigger) {

    public ExecutionSettings {
        positive("runlane.worker.concurrency", concurrency);
        positive("runlane.worker.poll-interval", pollInterval);
        positive("runlane.worker.lease-duration", leaseDuration);
        positive("runlane.worker.heartbeat-interval", heartbeatInterval);
        if (heartbeatInterval.compareTo(leaseDuration) >= 0) {
            throw new ConfigurationInvalidException(
                    "runlane.worker.heartbeat-interval",
                    "must be shorter than runlane.worker.lease-duration (" + leaseDuration + "), but was "
                            + heartbeatInterval);
        }
        if (shutdownTimeout.isNegative()) {
            throw new ConfigurationInvalidException(
                    "runlane.worker.shutdown-timeout", "must not be negative, but was " + shutdownTimeout);
        }
        positive("runlane.retry.initial-backoff", initialBackoff);
        positive("runlane.retry.max-backoff", maxBackoff);
        concurrencyLimits.forEach((queue, limit) -> positive("runlane.queues." + queue + ".concurrency-limit", limit));
        positive("runlane.failures.max-message-length", maxFailureMessageLength);
        positive("runlane.recovery.interval", recoveryInterval);
        positive("runlane.recovery.batch-size", recoveryBatchSize);
        if (attemptTimeout != null) {
            positive("runlane.worker.attempt-timeout", attemptTimeout);
        }
        positive("runlane.worker.cancellation-grace", cancellationGrace);
        queues = Set.copyOf(queues);
        concurrencyLimits = Map.copyOf(concurrencyLimits);
    }

    public static ExecutionSettings defaults() {
        return new ExecutionSettings(
                true,
                8,
                Duration.ofSeconds(1),
                Duration.ofSeconds(60),
                Duration.ofSeconds(20),
                Duration.ofSeconds(30),
                Set.of(),
                Duration.ofSeconds(1),
                Duration.ofMinutes(5),
                Map.of(),
                1000,
                Duration.ofSeconds(15),
                100,
                null,
                Duration.ofMinutes(5),
                true);
    }

    public ExecutionSettings withWorker(int concurrency, Duration pollInterval) {
        return toBuilder().concurrency(concurrency).pollInterval(pollInterval).build();
    }

    public ExecutionSettings withLease(Duration leaseDuration, Duration heartbeatInterval) {
        return toBuilder()
                .leaseDuration(leaseDuration)
                .heartbeatInterval(heartbeatInterval)
                .build();
    }

    public ExecutionSettings withBackoff(Duration initialBackoff, Duration maxBackoff) {
        return toBuilder().initialBackoff(initialBackoff).maxBackoff(maxBackoff).build();
    }

    public ExecutionSettings withConcurrencyLimits(Map<String, Integer> concurrencyLimits) {
        return toBuilder().concurrencyLimits(concurrencyLimits).build();
    }

    public ExecutionSettings withShutdownTimeout(Duration shutdownTimeout) {
        return toBuilder().shutdownTimeout(shutdownTimeout).build();
    }

    public ExecutionSettings withMaxFailureMessageLength(int maxFailureMessageLength) {
        return toBuilder().maxFailureMessageLength(maxFailureMessageLength).build();
    }

    public ExecutionSettings withRecoveryInterval(Duration recoveryInterval) {
        return toBuilder().recoveryInterval(recoveryInterval).build();
    }

    public ExecutionSettings withAttemptTimeout(@Nullable Duration attemptTimeout) {
        return toBuilder().attemptTimeout(attemptTimeout).build();
    }

    public ExecutionSettings withCancellationGrace(Duration cancellationGrace) {
        return toBuilder().cancellationGrace(cancellationGrace).build();
    }

    public ExecutionSettings withQueues(Set<String> queues) {
        return toBuilder().queues(queues).build();
    }

    /** A builder that starts from these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds {@link ExecutionSettings}, validated by {@link #build()}. */
    public static final class Builder {

        private boolean workerEnabled;

        private int concurrency;

        private Duration pollInterval;

        private Duration leaseDuration;

        private Duration heartbeatInterval;

        private Duration shutdownTimeout;

        private Set<String> queues;

        private Duration initialBackoff;

        private Duration maxBackoff;

        private Map<String, Integer> concurrencyLimits;

        private int maxFailureMessageLength;

        private Duration recoveryInterval;

        private int recoveryBatchSize;

        private @Nullable Duration attemptTimeout;

        private Duration cancellationGrace;

        private boolean startOnTrigger;

        private Builder(ExecutionSettings settings) {
            this.workerEnabled = settings.workerEnabled();
            this.concurrency = settings.concurrency();
            this.pollInterval = settings.pollInterval();
            this.leaseDuration = settings.leaseDuration();
            this.heartbeatInterval = settings.heartbeatInterval();
            this.shutdownTimeout = settings.shutdownTimeout();
            this.queues = settings.queues();
            this.initialBackoff = settings.initialBackoff();
            this.maxBackoff = settings.maxBackoff();
            this.concurrencyLimits = settings.concurrencyLimits();
            this.maxFailureMessageLength = settings.maxFailureMessageLength();
            this.recoveryInterval = settings.recoveryInterval();
            this.recoveryBatchSize = settings.recoveryBatchSize();
            this.attemptTimeout = settings.attemptTimeout();
            this.cancellationGrace = settings.cancellationGrace();
            this.startOnTrigger = settings.startOnTrigger();
        }

        public Builder startOnTrigger(boolean startOnTrigger) {
            this.startOnTrigger = startOnTrigger;
            return this;
        }

        public Builder workerEnabled(boolean workerEnabled) {
            this.workerEnabled = workerEnabled;
            return this;
        }

        public Builder concurrency(int concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        public Builder leaseDuration(Duration leaseDuration) {
            this.leaseDuration = leaseDuration;
            return this;
        }

        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        public Builder shutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
            return this;
        }

        public Builder queues(Set<String> queues) {
            this.queues = queues;
            return this;
        }

        public Builder initialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
            return this;
        }

        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
            return this;
        }

        public Builder concurrencyLimits(Map<String, Integer> concurrencyLimits) {
            this.concurrencyLimits = concurrencyLimits;
            return this;
        }

        public Builder maxFailureMessageLength(int maxFailureMessageLength) {
            this.maxFailureMessageLength = maxFailureMessageLength;
            return this;
        }

        public Builder recoveryInterval(Duration recoveryInterval) {
            this.recoveryInterval = recoveryInterval;
            return this;
        }

        public Builder recoveryBatchSize(int recoveryBatchSize) {
            this.recoveryBatchSize = recoveryBatchSize;
            return this;
        }

        public Builder attemptTimeout(@Nullable Duration attemptTimeout) {
            this.attemptTimeout = attemptTimeout;
            return this;
        }

        public Builder cancellationGrace(Duration cancellationGrace) {
            this.cancellationGrace = cancellationGrace;
            return this;
        }

        public ExecutionSettings build() {
            return new ExecutionSettings(
                    workerEnabled,
                    concurrency,
                    pollInterval,
                    leaseDuration,
                    heartbeatInterval,
                    shutdownTimeout,
                    queues,
                    initialBackoff,
                    maxBackoff,
                    concurrencyLimits,
                    maxFailureMessageLength,
                    recoveryInterval,
                    recoveryBatchSize,
                    attemptTimeout,
                    cancellationGrace,
                    startOnTrigger);
        }
    }

    private static void positive(String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new ConfigurationInvalidException(property, "must be a positive duration, but was " + value);
        }
    }

    private static void positive(String property, Integer value) {
        if (value == null || value < 1) {
            throw new ConfigurationInvalidException(property, "must be at least 1, but was " + value);
        }
    }
}
