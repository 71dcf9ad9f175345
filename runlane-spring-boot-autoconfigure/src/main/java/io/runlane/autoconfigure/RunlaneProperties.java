package io.runlane.autoconfigure;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.internal.kernel.RunlaneSettings;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.validation.annotation.Validated;

/** Configuration of Runlane, under the prefix {@code runlane}. */
@ConfigurationProperties(prefix = "runlane")
@Validated
public class RunlaneProperties {

    /** Whether Runlane is auto-configured. */
    private boolean enabled = true;

    /** The environment that scopes every run and key; apps sharing a database with different values never meet. */
    private String environment = "default";

    @Valid
    private final Schema schema = new Schema();

    @Valid
    private final Idempotency idempotency = new Idempotency();

    @Valid
    private final Retry retry = new Retry();

    @Valid
    @NestedConfigurationProperty
    private final WorkerProperties worker = new WorkerProperties();

    @Valid
    @NestedConfigurationProperty
    private final RecoveryProperties recovery = new RecoveryProperties();

    @Valid
    private final Failures failures = new Failures();

    @Valid
    @NestedConfigurationProperty
    private final PruningProperties pruning = new PruningProperties();

    /** How task results are stored. */
    @Valid
    @NestedConfigurationProperty
    private final ResultsProperties results = new ResultsProperties();

    @Valid
    private final Health health = new Health();

    private final Database database = new Database();

    private final Schedules schedules = new Schedules();

    private final Console console = new Console();

    /** Declared queues by name; the queue 'default' always exists. */
    private final Map<String, @Valid Queue> queues = new LinkedHashMap<>();

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

    public WorkerProperties getWorker() {
        return worker;
    }

    public RecoveryProperties getRecovery() {
        return recovery;
    }

    public Failures getFailures() {
        return failures;
    }

    public Console getConsole() {
        return console;
    }

    public PruningProperties getPruning() {
        return pruning;
    }

    public ResultsProperties getResults() {
        return results;
    }

    public Health getHealth() {
        return health;
    }

    public Database getDatabase() {
        return database;
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

    /** How Runlane talks to its database. */
    public static class Database {

        /**
         * How long a statement of Runlane's own loops (claims, heartbeats, completions, maintenance, schedules,
         * listeners) waits for an answer before its connection is abandoned, so that a hung primary is left in seconds
         * whatever the JDBC URL's socketTimeout says. At least 1s.
         */
        private Duration networkTimeout = RunlaneSettings.DEFAULT_NETWORK_TIMEOUT;

        public Duration getNetworkTimeout() {
            return networkTimeout;
        }

        public void setNetworkTimeout(Duration networkTimeout) {
            this.networkTimeout = networkTimeout;
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

    /** How failures are stored. */
    public static class Failures {

        /** Failure messages are truncated to this many characters; stack traces go to the log. */
        @Min(1)
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
        @NotBlank
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
        @NotNull
        private IdempotencyKeyTtl defaultTtl = IdempotencyKeyTtl.of(Duration.ofDays(30));

        public IdempotencyKeyTtl getDefaultTtl() {
            return defaultTtl;
        }

        public void setDefaultTtl(IdempotencyKeyTtl defaultTtl) {
            this.defaultTtl = defaultTtl;
        }
    }

    /** Retry policy defaults for tasks that set none. */
    public static class Retry {

        /** Attempts a run may make, counting the first. */
        @Min(1)
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
        private @Nullable @Min(1) Integer concurrencyLimit;

        public @Nullable Integer getConcurrencyLimit() {
            return concurrencyLimit;
        }

        public void setConcurrencyLimit(@Nullable Integer concurrencyLimit) {
            this.concurrencyLimit = concurrencyLimit;
        }
    }

    /** The web console (S-CO-1, S-CO-2). */
    public static class Console {

        /** Whether a servlet web application serves the console. */
        private boolean enabled = false;

        /** The path the console is served under. */
        private String path = "/runlane";

        /** What the console may do: look only, or also cancel, retry, rerun and reset keys. */
        private ConsoleAccess access = ConsoleAccess.READ_ONLY;

        /**
         * When payloads, results, step results and signal payloads are shown unmasked: never, always, or
         * when-authorized; unset, as the actuator endpoint's {@code management.endpoint.runlane.show-values}, whose
         * default is never.
         */
        private @Nullable ConsoleShowValues showValues;

        /** Roles that may see unmasked values when show-values is when-authorized; empty: any authenticated user. */
        private Set<String> roles = new HashSet<>();

        public @Nullable ConsoleShowValues getShowValues() {
            return showValues;
        }

        public void setShowValues(@Nullable ConsoleShowValues showValues) {
            this.showValues = showValues;
        }

        public Set<String> getRoles() {
            return roles;
        }

        public void setRoles(Set<String> roles) {
            this.roles = roles;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }

        public ConsoleAccess getAccess() {
            return access;
        }

        public void setAccess(ConsoleAccess access) {
            this.access = access;
        }
    }

    /** When the console shows the values runs carry (S-CO-13), named as the actuator's {@code show-values}. */
    public enum ConsoleShowValues {
        /** Always masked. */
        NEVER,
        /** Always shown. */
        ALWAYS,
        /** Shown to an authenticated user, in one of {@code runlane.console.roles} if any are set. */
        WHEN_AUTHORIZED
    }

    /** The console's access modes. */
    public enum ConsoleAccess {
        /** Reads only: no action is offered and the console's API refuses writes. */
        READ_ONLY,
        /** Reads and the operator actions, each confirmed. */
        UNRESTRICTED
    }
}
