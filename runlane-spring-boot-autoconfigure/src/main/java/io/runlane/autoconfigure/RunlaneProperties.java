package io.runlane.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Configuration of Runlane, under the prefix {@code runlane}. */
@ConfigurationProperties(prefix = "runlane")
public class RunlaneProperties {

    /** Whether Runlane is auto-configured. */
    private boolean enabled = true;

    /** The environment that scopes every run and key; apps sharing a database with different values never meet. */
    private String environment = "default";

    private final Schema schema = new Schema();

    private final Idempotency idempotency = new Idempotency();

    private final Retry retry = new Retry();

    private final Worker worker = new Worker();

    private final Recovery recovery = new Recovery();

    private final Failures failures = new Failures();

    private final Pruning pruning = new Pruning();

    private final Health health = new Health();

    private final Schedules schedules = new Schedules();

    /** Declared queues by name; the queue 'default' always exists. */
    private final Map<String, Queue> queues = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getEnvironment() {
        return environment;
    }

    public void setEnvironment(String environment) {
        this.environment = environment;
    }

    public Schema getSchema() {
        return schema;
    }

    public Idempotency getIdempotency() {
        return idempotency;
    }

    public Retry getRetry() {
        return retry;
    }

    public Map<String, Queue> getQueues() {
        return queues;
    }

    public Worker getWorker() {
        return worker;
    }

    public Recovery getRecovery() {
        return recovery;
    }

    public Failures getFailures() {
        return failures;
    }

    public Pruning getPruning() {
        return pruning;
    }

    public Health getHealth() {
        return health;
    }

    public Schedules getSchedules() {
        return schedules;
    }

    /**
     * Schedules (S-SC). Declared schedules live beside these settings, under {@code runlane.schedules.<id>.task|cron|
     * every|zone|payload|overlap|catch-up|enabled}; the auto-configuration binds them by id.
     */
    public static class Schedules {

        /** How far back occurrences missed while no instance ran, or while paused, are still caught up. */
        private Duration catchUpWindow = Duration.ofHours(1);

        /** How often an instance looks for due schedules; a schedule fires late by at most this much. */
        private Duration pollInterval = Duration.ofSeconds(10);

        public Duration getCatchUpWindow() {
            return catchUpWindow;
        }

        public void setCatchUpWindow(Duration catchUpWindow) {
            this.catchUpWindow = catchUpWindow;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }
    }

    /** Runlane's health indicator. */
    public static class Health {

        /** How long the health check waits for the database before answering DOWN. */
        private Duration timeout = Duration.ofSeconds(2);

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** The automatic pruning job. */
    public static class Pruning {

        /** Whether this instance prunes finished runs; safe to run on every instance at once. */
        private boolean enabled = true;

        /** How often the job runs (jittered). */
        private Duration interval = Duration.ofMinutes(1);

        /** Runs deleted per transaction. */
        private int batchSize = 1000;

        /** How long one run of the job may keep deleting. */
        private Duration timeBudget = Duration.ofSeconds(10);

        private final Retention retention = new Retention();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getTimeBudget() {
            return timeBudget;
        }

        public void setTimeBudget(Duration timeBudget) {
            this.timeBudget = timeBudget;
        }

        public Retention getRetention() {
            return retention;
        }
    }

    /** How long finished runs are kept, per status; a run whose idempotency retention runs longer is kept longer. */
    public static class Retention {

        /** How long SUCCEEDED runs are kept after they finish. */
        private Duration succeeded = Duration.ofDays(7);

        /** How long FAILED runs are kept after they finish. */
        private Duration failed = Duration.ofDays(30);

        /** How long CANCELLED runs are kept after they finish. */
        private Duration cancelled = Duration.ofDays(7);

        public Duration getSucceeded() {
            return succeeded;
        }

        public void setSucceeded(Duration succeeded) {
            this.succeeded = succeeded;
        }

        public Duration getFailed() {
            return failed;
        }

        public void setFailed(Duration failed) {
            this.failed = failed;
        }

        public Duration getCancelled() {
            return cancelled;
        }

        public void setCancelled(Duration cancelled) {
            this.cancelled = cancelled;
        }
    }

    /** The worker that claims and executes runs on this instance. */
    public static class Worker {

        /** Whether this instance executes runs; producers-only instances set it to false. */
        private boolean enabled = true;

        /** Attempts this instance executes at once. */
        private int concurrency = 8;

        /** How often an idle worker looks for due runs (jittered); new runs wake it sooner. */
        private Duration pollInterval = Duration.ofSeconds(1);

        /** How long a claim is valid without a heartbeat. */
        private Duration leaseDuration = Duration.ofSeconds(60);

        /** How often leases of running attempts are extended. */
        private Duration heartbeatInterval = Duration.ofSeconds(20);

        /** How long stopping waits for running attempts before leaving them to lease expiry. */
        private Duration shutdownTimeout = Duration.ofSeconds(30);

        /** Queues this instance consumes; empty means every declared queue. */
        private List<String> queues = new ArrayList<>();

        /** How long one attempt may run when its task sets no timeout; none by default. */
        private @Nullable Duration attemptTimeout;

        /** How long a run asked to stop may keep running before it is made CANCELLED and its lease revoked. */
        private Duration cancellationGrace = Duration.ofMinutes(5);

        public @Nullable Duration getAttemptTimeout() {
            return attemptTimeout;
        }

        public void setAttemptTimeout(@Nullable Duration attemptTimeout) {
            this.attemptTimeout = attemptTimeout;
        }

        public Duration getCancellationGrace() {
            return cancellationGrace;
        }

        public void setCancellationGrace(Duration cancellationGrace) {
            this.cancellationGrace = cancellationGrace;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public Duration getLeaseDuration() {
            return leaseDuration;
        }

        public void setLeaseDuration(Duration leaseDuration) {
            this.leaseDuration = leaseDuration;
        }

        public Duration getHeartbeatInterval() {
            return heartbeatInterval;
        }

        public void setHeartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        public List<String> getQueues() {
            return queues;
        }

        public void setQueues(List<String> queues) {
            this.queues = queues;
        }
    }

    /** Recovery of runs whose worker died (expired leases). */
    public static class Recovery {

        /** Whether this instance recovers expired leases; safe to run on every instance at once. */
        private boolean enabled = true;

        /** How often expired leases are looked for (jittered). */
        private Duration interval = Duration.ofSeconds(15);

        /** Expired leases recovered per batch. */
        private int batchSize = 100;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /** How failures are stored. */
    public static class Failures {

        /** Failure messages are truncated to this many characters; stack traces go to the log. */
        private int maxMessageLength = 1000;

        public int getMaxMessageLength() {
            return maxMessageLength;
        }

        public void setMaxMessageLength(int maxMessageLength) {
            this.maxMessageLength = maxMessageLength;
        }
    }

    /** Where Runlane's tables live and who creates them. */
    public static class Schema {

        /** The PostgreSQL schema holding Runlane's tables. */
        private String name = "runlane";

        /** Whether Runlane applies its own Liquibase changelog at start-up. */
        private boolean initialize = true;

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public boolean isInitialize() {
            return initialize;
        }

        public void setInitialize(boolean initialize) {
            this.initialize = initialize;
        }
    }

    /** Idempotency key retention. */
    public static class Idempotency {

        /** How long a finished owner keeps its key when neither the task nor the call says: a duration or 'active'. */
        private String defaultTtl = "30d";

        public String getDefaultTtl() {
            return defaultTtl;
        }

        public void setDefaultTtl(String defaultTtl) {
            this.defaultTtl = defaultTtl;
        }
    }

    /** Retry policy defaults for tasks that set none. */
    public static class Retry {

        /** Attempts a run may make, counting the first. */
        private int maxAttempts = 3;

        /** The first exponential backoff delay. */
        private Duration initialBackoff = Duration.ofSeconds(1);

        /** The cap of the exponential backoff. */
        private Duration maxBackoff = Duration.ofMinutes(5);

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getInitialBackoff() {
            return initialBackoff;
        }

        public void setInitialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }
    }

    /** One declared queue. */
    public static class Queue {

        /** The most runs of this queue running at once across all instances (per concurrency key); unset: no limit. */
        private @Nullable Integer concurrencyLimit;

        public @Nullable Integer getConcurrencyLimit() {
            return concurrencyLimit;
        }

        public void setConcurrencyLimit(@Nullable Integer concurrencyLimit) {
            this.concurrencyLimit = concurrencyLimit;
        }
    }
}
