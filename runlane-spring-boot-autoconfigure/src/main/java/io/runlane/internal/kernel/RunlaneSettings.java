package io.runlane.internal.kernel;

import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyTtl;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;

/**
 * The engine's configuration, free of Spring Boot types so that the engine can be assembled by hand (tests,
 * benchmarks) as well as by the auto-configuration.
 *
 * @param environment the environment that scopes every run and key (S-IK-1)
 * @param schema the PostgreSQL schema holding Runlane's tables
 * @param defaultIdempotencyKeyTtl the retention used when neither the task nor the call sets one (S-IK-6)
 * @param defaultMaxAttempts the attempt budget used when the task sets none (S-EX-4)
 * @param queues the declared queue names; {@code default} is always declared (S-QC-1)
 * @param networkTimeout how long a statement of the engine's own loops may wait for an answer from the database
 *     before its connection is abandoned (S-MO-11)
 */
public record RunlaneSettings(
        String environment,
        String schema,
        IdempotencyKeyTtl defaultIdempotencyKeyTtl,
        int defaultMaxAttempts,
        Set<String> queues,
        Duration networkTimeout) {

    public static final String DEFAULT_QUEUE = "default";

    /** The default of {@code runlane.database.network-timeout}. */
    public static final Duration DEFAULT_NETWORK_TIMEOUT = Duration.ofSeconds(5);

    /** Settings with the default network timeout. */
    public RunlaneSettings(
            String environment,
            String schema,
            IdempotencyKeyTtl defaultIdempotencyKeyTtl,
            int defaultMaxAttempts,
            Set<String> queues) {
        this(environment, schema, defaultIdempotencyKeyTtl, defaultMaxAttempts, queues, DEFAULT_NETWORK_TIMEOUT);
    }

    public RunlaneSettings {
        KeyRules.requireValid("runlane.environment", environment);
        SchemaName.requireValid(schema);
        TimeRules.requireTtl("runlane.idempotency.default-ttl", defaultIdempotencyKeyTtl);
        if (defaultMaxAttempts < 1) {
            throw new ConfigurationInvalidException(
                    "runlane.retry.max-attempts", "must be at least 1, but was " + defaultMaxAttempts);
        }
        TreeSet<String> declared = new TreeSet<>(queues);
        declared.add(DEFAULT_QUEUE);
        declared.forEach(queue -> KeyRules.requireValid("runlane.queues." + queue, queue));
        queues = Set.copyOf(declared);
        if (networkTimeout == null || networkTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new ConfigurationInvalidException(
                    "runlane.database.network-timeout", "must be at least 1s, but was " + networkTimeout);
        }
        TimeRules.requireDuration("runlane.database.network-timeout", networkTimeout);
    }

    /** Settings with the documented defaults, for the given schema. */
    public static RunlaneSettings defaults(String schema) {
        return new RunlaneSettings("default", schema, IdempotencyKeyTtl.parse("30d"), 3, Set.of());
    }

    public RunlaneSettings withEnvironment(String environment) {
        return new RunlaneSettings(
                environment, schema, defaultIdempotencyKeyTtl, defaultMaxAttempts, queues, networkTimeout);
    }

    public RunlaneSettings withDefaultIdempotencyKeyTtl(IdempotencyKeyTtl ttl) {
        return new RunlaneSettings(environment, schema, ttl, defaultMaxAttempts, queues, networkTimeout);
    }

    public RunlaneSettings withQueues(Set<String> queues) {
        return new RunlaneSettings(
                environment, schema, defaultIdempotencyKeyTtl, defaultMaxAttempts, queues, networkTimeout);
    }

    public RunlaneSettings withNetworkTimeout(Duration networkTimeout) {
        return new RunlaneSettings(
                environment, schema, defaultIdempotencyKeyTtl, defaultMaxAttempts, queues, networkTimeout);
    }
}
