package io.runlane.internal.trigger;

import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.KeyResolverException;
import io.runlane.SingletonConflictPolicy;
import io.runlane.TriggerOptions;
import io.runlane.internal.kernel.Guarantees;
import io.runlane.internal.kernel.KeyRules;
import io.runlane.internal.kernel.PriorityRules;
import io.runlane.internal.kernel.RunIds;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.kernel.TimeRules;
import io.runlane.internal.kernel.TraceContextCapture;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.TaskDefinition;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Turns a trigger call into a {@link NewRun}: checks the payload, resolves keys (a per-call option wins over the
 * task's resolver, field by field, S-TR-2), and validates everything before the database is touched, so that bad
 * input fails with a typed exception and writes nothing (S-ID-1, S-ID-3, S-ID-4, S-IK-6). The new run carries the
 * current trace context, if any, for its attempts to continue (S-MO-9).
 */
public final class TriggerPlanner {

    private final RunlaneSettings settings;

    private final PayloadCodec payloads;

    private final TraceContextCapture traceContexts;

    public TriggerPlanner(RunlaneSettings settings, PayloadCodec payloads, TraceContextCapture traceContexts) {
        this.settings = settings;
        this.payloads = payloads;
        this.traceContexts = traceContexts;
    }

    public NewRun plan(TaskDefinition task, @Nullable Object payload, TriggerOptions options) {
        return plan(task, payloads.typedAndValid(task, payload), options, true, null, null);
    }

    /**
     * Plans a run derived from a stored one (rerun, manual retry; S-OP-2): the stored payload is read back and
     * validated again, and the new run has only the keys the options give, never the task's resolved ones.
     */
    public NewRun planDerived(
            TaskDefinition task, String payloadJson, TriggerOptions options, String sourceType, UUID sourceRunId) {
        return plan(task, payloads.fromJson(task, payloadJson), options, false, sourceType, sourceRunId);
    }

    private NewRun plan(
            TaskDefinition task,
            Object typed,
            TriggerOptions options,
            boolean resolveKeys,
            @Nullable String sourceType,
            @Nullable UUID sourceRunId) {
        String idempotencyKey = key(
                task,
                "idempotencyKey",
                options.idempotencyKey(),
                typed,
                resolveKeys ? p -> task.handler().idempotencyKey(p) : p -> null);
        String singletonKey = key(
                task,
                "singletonKey",
                options.singletonKey(),
                typed,
                resolveKeys ? p -> task.handler().singletonKey(p) : p -> null);
        String concurrencyKey = key(
                task,
                "concurrencyKey",
                options.concurrencyKey(),
                typed,
                resolveKeys ? p -> task.handler().concurrencyKey(p) : p -> null);
        String queue = queue(task, options.queue());
        DebounceTerms debounce = DebounceTerms.of(
                task,
                key(
                        task,
                        "debounceKey",
                        options.debounceKey(),
                        typed,
                        resolveKeys ? p -> task.handler().debounceKey(p) : p -> null),
                options);
        if (idempotencyKey == null && options.idempotencyKeyTtl() != null) {
            throw new ConfigurationInvalidException(
                    "idempotencyKeyTtl",
                    "requires an idempotency key, but the trigger has none (S-IK-6, " + Guarantees.link("S-IK-6")
                            + ")");
        }
        Duration ttl = idempotencyKey == null ? null : retention(task, options.idempotencyKeyTtl());
        Duration delay = options.delay();
        if (delay != null && options.runAt() != null) {
            throw new ConfigurationInvalidException("delay", "cannot be combined with runAt; set one of them");
        }
        TimeRules.requireDurationOrNull("delay", delay);
        TimeRules.requireInstantOrNull("runAt", options.runAt());
        SingletonConflictPolicy policy =
                options.onSingletonConflict() != null ? options.onSingletonConflict() : task.onSingletonConflict();
        String signalName = KeyRules.requireValidOrNull("signalName", options.signalName());
        if (policy == SingletonConflictPolicy.SIGNAL_OWNER && signalName == null && singletonKey != null) {
            throw new ConfigurationInvalidException(
                    "signalName", "is required with onSingletonConflict SIGNAL_OWNER (S-CP-4), but none was given");
        }
        if (policy != SingletonConflictPolicy.SIGNAL_OWNER && signalName != null) {
            throw new ConfigurationInvalidException(
                    "signalName", "only applies with onSingletonConflict SIGNAL_OWNER, but the policy is " + policy);
        }
        return new NewRun(
                RunIds.next(),
                task.id(),
                queue,
                payloads.toJson(task, typed),
                idempotencyKey,
                ttl,
                singletonKey,
                concurrencyKey,
                task.maxAttempts(),
                options.runAt(),
                delay,
                sourceType,
                sourceRunId,
                policy,
                signalName,
                traceContexts.capture(),
                options.priority() != null
                        ? PriorityRules.requireValid("priority", options.priority())
                        : task.priority(),
                debounce,
                rateLimit(task, typed, options),
                throttleKey(task, options.throttleKey(), typed));
    }

    /**
     * The rate limit the run counts against (S-RT-1), {@code null} for a task without one: the call's key, else the
     * task's resolver's, else none (the whole task's limit). Derived runs resolve it too, since they count like
     * triggers (S-RT-3). A task without a rate limit never calls its resolver, and refuses a per-call key.
     */
    private static @Nullable RateLimitedKey rateLimit(TaskDefinition task, Object typed, TriggerOptions options) {
        if (task.rateLimit() == null) {
            if (options.rateLimitKey() != null) {
                KeyRules.requireValid("rateLimitKey", options.rateLimitKey());
                throw new ConfigurationInvalidException(
                        "rateLimitKey",
                        "task '" + task.id() + "' declares no rate limit (S-RT-1, " + Guarantees.link("S-RT-1") + ")");
            }
            return null;
        }
        String key = key(
                task,
                "rateLimitKey",
                options.rateLimitKey(),
                typed,
                p -> task.handler().rateLimitKey(p));
        return new RateLimitedKey(key, task.rateLimit());
    }

    /**
     * S-TH-1: the key the task's throttle counts the run under, resolved for derived runs too (a rerun is throttled
     * like any run of its task); the empty string stands for one throttle for the whole task, {@code null} for a
     * task without a throttle. A per-call key for a task without a throttle is refused.
     */
    private static @Nullable String throttleKey(TaskDefinition task, @Nullable String override, Object payload) {
        if (task.throttle() == null) {
            if (override != null) {
                throw new ConfigurationInvalidException(
                        "throttleKey",
                        "applies only to a task with a throttle, but task '" + task.id() + "' declares none (S-TH-1, "
                                + Guarantees.link("S-TH-1") + ")");
            }
            return null;
        }
        String key =
                key(task, "throttleKey", override, payload, p -> task.handler().throttleKey(p));
        return key == null ? "" : key;
    }

    private static @Nullable String key(
            TaskDefinition task,
            String field,
            @Nullable String override,
            Object payload,
            Function<Object, @Nullable String> resolver) {
        if (override != null) {
            return KeyRules.requireValid(field, override);
        }
        String resolved;
        try {
            resolved = resolver.apply(payload);
        } catch (Exception ex) {
            // Exception, not RuntimeException: resolvers written in Kotlin or with sneaky throws raise checked ones.
            throw new KeyResolverException(task.id(), field, ex);
        }
        return KeyRules.requireValidOrNull(field, resolved);
    }

    private String queue(TaskDefinition task, @Nullable String override) {
        if (override == null) {
            return task.queue();
        }
        KeyRules.requireValid("queue", override);
        if (!settings.queues().contains(override)) {
            throw new ConfigurationInvalidException(
                    "queue",
                    "'" + override + "' is not declared under runlane.queues (S-QC-1, " + Guarantees.link("S-QC-1")
                            + ")");
        }
        return override;
    }

    /** The retention to store with the run: the call's, else the task's, else the configured default (S-IK-6). */
    private Duration retention(TaskDefinition task, @Nullable IdempotencyKeyTtl override) {
        IdempotencyKeyTtl ttl = override != null
                ? TimeRules.requireTtl("idempotencyKeyTtl", override)
                : task.idempotencyKeyTtl() != null ? task.idempotencyKeyTtl() : settings.defaultIdempotencyKeyTtl();
        return ttl.isActive() ? Duration.ZERO : ttl.duration();
    }
}
