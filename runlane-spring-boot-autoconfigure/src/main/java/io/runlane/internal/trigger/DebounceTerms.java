package io.runlane.internal.trigger;

import io.runlane.ConfigurationInvalidException;
import io.runlane.DebounceMode;
import io.runlane.TriggerOptions;
import io.runlane.internal.kernel.FlowControlRules;
import io.runlane.internal.kernel.Guarantees;
import io.runlane.internal.registry.DebouncePolicy;
import io.runlane.internal.registry.TaskDefinition;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How one trigger debounces (S-DB-1, S-DB-2): its debounce key, the period and maximum wait it applies (the call's
 * options, else the task's declaration), and the task's mode. Validated when the trigger is planned, before anything
 * is written.
 *
 * @param key the debounce key, valid by S-ID-1
 * @param period how long after this trigger the pending run is due
 * @param maxWait how long after the window's first trigger the pending run is due at the latest, or {@code null}
 * @param mode whether this trigger's payload replaces the pending run's when it folds
 */
record DebounceTerms(String key, Duration period, @Nullable Duration maxWait, DebounceMode mode) {

    /**
     * The terms of a trigger whose debounce key is {@code key} ({@code null}: the trigger does not debounce), or
     * {@code null} when it does not debounce.
     *
     * @throws ConfigurationInvalidException when the options' period or maximum wait is out of range, when a key has
     *     no period (neither the call's nor the task's), when the call names a period without any key, or when a key
     *     comes with {@code delay} or {@code runAt} (S-DB-6)
     */
    static @Nullable DebounceTerms of(TaskDefinition task, @Nullable String key, TriggerOptions options) {
        if (key == null) {
            if (options.debounce() != null || options.debounceMaxWait() != null) {
                throw new ConfigurationInvalidException(
                        "debounceKey",
                        "is required with debounce or debounceMaxWait, but the trigger has none (S-DB-1, "
                                + Guarantees.link("S-DB-1") + ")");
            }
            return null;
        }
        if (options.delay() != null) {
            throw startGiven("delay");
        }
        if (options.runAt() != null) {
            throw startGiven("runAt");
        }
        DebouncePolicy declared = task.debounce();
        Duration period = options.debounce() != null
                ? FlowControlRules.require(
                        "debounce", options.debounce(), FlowControlRules.debounceViolation(options.debounce()))
                : declared == null ? null : declared.period();
        if (period == null) {
            throw new ConfigurationInvalidException(
                    "debounce",
                    "is required with debounce key '" + key + "', but neither the trigger nor task '" + task.id()
                            + "' declares a debounce period (S-DB-1, " + Guarantees.link("S-DB-1") + ")");
        }
        Duration maxWait = options.debounceMaxWait() != null
                ? options.debounceMaxWait()
                : declared == null ? null : declared.maxWait();
        if (maxWait != null) {
            FlowControlRules.require(
                    "debounceMaxWait", maxWait, FlowControlRules.debounceMaxWaitViolation(maxWait, period));
        }
        return new DebounceTerms(key, period, maxWait, declared == null ? DebounceMode.LATEST : declared.mode());
    }

    private static ConfigurationInvalidException startGiven(String field) {
        return new ConfigurationInvalidException(
                field,
                "cannot be combined with a debounce key: the debounce decides when the run starts (S-DB-6, "
                        + Guarantees.link("S-DB-6") + ")");
    }
}
