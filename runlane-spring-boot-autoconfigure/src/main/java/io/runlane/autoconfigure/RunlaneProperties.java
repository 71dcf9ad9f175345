package io.runlane.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
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

    /** Declared queues by name; the queue {@code default} always exists. */
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

        /** The most runs of this queue running at once across all instances; unset means no limit. */
        private @Nullable Integer concurrencyLimit;

        public @Nullable Integer getConcurrencyLimit() {
            return concurrencyLimit;
        }

        public void setConcurrencyLimit(@Nullable Integer concurrencyLimit) {
            this.concurrencyLimit = concurrencyLimit;
        }
    }
}
