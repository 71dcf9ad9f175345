package io.runlane;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Per-call overrides for a trigger. Every field left unset falls back to the task's declaration (S-TR-2). Values are
 * validated when the trigger is called, so a bad option fails that call and writes nothing.
 */
public final class TriggerOptions {

    private static final TriggerOptions NONE = new Builder().build();

    private final @Nullable String idempotencyKey;
    private final @Nullable IdempotencyKeyTtl idempotencyKeyTtl;
    private final @Nullable String singletonKey;
    private final @Nullable String concurrencyKey;
    private final @Nullable String queue;
    private final @Nullable Duration delay;
    private final @Nullable Instant runAt;
    private final @Nullable SingletonConflictPolicy onSingletonConflict;
    private final @Nullable String signalName;
    private final @Nullable Integer priority;
    private final @Nullable String debounceKey;
    private final @Nullable Duration debounce;
    private final @Nullable Duration debounceMaxWait;
    private final @Nullable String rateLimitKey;
    private final @Nullable String throttleKey;

    private TriggerOptions(Builder builder) {
        this.idempotencyKey = builder.idempotencyKey;
        this.idempotencyKeyTtl = builder.idempotencyKeyTtl;
        this.singletonKey = builder.singletonKey;
        this.concurrencyKey = builder.concurrencyKey;
        this.queue = builder.queue;
        this.delay = builder.delay;
        this.runAt = builder.runAt;
        this.onSingletonConflict = builder.onSingletonConflict;
        this.signalName = builder.signalName;
        this.priority = builder.priority;
        this.debounceKey = builder.debounceKey;
        this.debounce = builder.debounce;
        this.debounceMaxWait = builder.debounceMaxWait;
        this.rateLimitKey = builder.rateLimitKey;
        this.throttleKey = builder.throttleKey;
    }

    /** Options that override nothing. */
    public static TriggerOptions none() {
        return NONE;
    }

    public static Builder builder() {
        return new Builder();
    }

    public @Nullable String idempotencyKey() {
        return idempotencyKey;
    }

    public @Nullable IdempotencyKeyTtl idempotencyKeyTtl() {
        return idempotencyKeyTtl;
    }

    public @Nullable String singletonKey() {
        return singletonKey;
    }

    public @Nullable String concurrencyKey() {
        return concurrencyKey;
    }

    public @Nullable String queue() {
        return queue;
    }

    public @Nullable Duration delay() {
        return delay;
    }

    public @Nullable Instant runAt() {
        return runAt;
    }

    /** The singleton conflict policy for this call, overriding the task's (S-CP-1); {@code null}: the task's. */
    public @Nullable SingletonConflictPolicy onSingletonConflict() {
        return onSingletonConflict;
    }

    /** The name of the signal that {@link SingletonConflictPolicy#SIGNAL_OWNER} delivers (S-CP-4). */
    public @Nullable String signalName() {
        return signalName;
    }

    /**
     * The run's priority, from -100 to 100 (S-PR-1): among a queue's due runs a higher one is claimed first; {@code
     * null} keeps the task's ({@code @Task(priority = ...)}, default 0), or a rerun's, retry's or fork's source's.
     */
    public @Nullable Integer priority() {
        return priority;
    }

    /**
     * The debounce key of this call (S-DB-1), overriding the task's resolver: triggers of one key fold into one
     * pending run. {@code null}: the task's ({@code debounceKey(payload)}).
     */
    public @Nullable String debounceKey() {
        return debounceKey;
    }

    /** The debounce period of this call, overriding {@code @Task(debounce)} (S-DB-1); {@code null}: the task's. */
    public @Nullable Duration debounce() {
        return debounce;
    }

    /** The longest postponement of this call's debounce window (S-DB-1); {@code null}: the task's. */
    public @Nullable Duration debounceMaxWait() {
        return debounceMaxWait;
    }

    /** The rate-limit key of this call (S-RT-1), overriding the task's resolver; {@code null}: the task's. */
    public @Nullable String rateLimitKey() {
        return rateLimitKey;
    }

    /** The throttle key of the run (S-TH-1), overriding the task's resolver; {@code null}: the task's. */
    public @Nullable String throttleKey() {
        return throttleKey;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TriggerOptions that
                && Objects.equals(idempotencyKey, that.idempotencyKey)
                && Objects.equals(idempotencyKeyTtl, that.idempotencyKeyTtl)
                && Objects.equals(singletonKey, that.singletonKey)
                && Objects.equals(concurrencyKey, that.concurrencyKey)
                && Objects.equals(queue, that.queue)
                && Objects.equals(delay, that.delay)
                && Objects.equals(runAt, that.runAt)
                && onSingletonConflict == that.onSingletonConflict
                && Objects.equals(signalName, that.signalName)
                && Objects.equals(priority, that.priority)
                && Objects.equals(debounceKey, that.debounceKey)
                && Objects.equals(debounce, that.debounce)
                && Objects.equals(debounceMaxWait, that.debounceMaxWait)
                && Objects.equals(rateLimitKey, that.rateLimitKey)
                && Objects.equals(throttleKey, that.throttleKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                idempotencyKey,
                idempotencyKeyTtl,
                singletonKey,
                concurrencyKey,
                queue,
                delay,
                runAt,
                onSingletonConflict,
                signalName,
                priority,
                debounceKey,
                debounce,
                debounceMaxWait,
                rateLimitKey,
                throttleKey);
    }

    @Override
    public String toString() {
        return "TriggerOptions[idempotencyKey=" + idempotencyKey + ", idempotencyKeyTtl=" + idempotencyKeyTtl
                + ", singletonKey=" + singletonKey + ", concurrencyKey=" + concurrencyKey + ", queue=" + queue
                + ", delay=" + delay + ", runAt=" + runAt + ", onSingletonConflict=" + onSingletonConflict
                + ", signalName=" + signalName + ", priority=" + priority + ", debounceKey=" + debounceKey
                + ", debounce="
                + debounce + ", debounceMaxWait=" + debounceMaxWait + ", rateLimitKey=" + rateLimitKey
                + ", throttleKey=" + throttleKey + "]";
    }

    /** Builds {@link TriggerOptions}; a builder is not thread-safe, the options it builds are immutable. */
    public static final class Builder {

        private @Nullable String idempotencyKey;
        private @Nullable IdempotencyKeyTtl idempotencyKeyTtl;
        private @Nullable String singletonKey;
        private @Nullable String concurrencyKey;
        private @Nullable String queue;
        private @Nullable Duration delay;
        private @Nullable Instant runAt;
        private @Nullable SingletonConflictPolicy onSingletonConflict;
        private @Nullable String signalName;
        private @Nullable Integer priority;
        private @Nullable String debounceKey;
        private @Nullable Duration debounce;
        private @Nullable Duration debounceMaxWait;
        private @Nullable String rateLimitKey;
        private @Nullable String throttleKey;

        private Builder() {}

        public Builder idempotencyKey(@Nullable String idempotencyKey) {
            this.idempotencyKey = idempotencyKey;
            return this;
        }

        public Builder idempotencyKeyTtl(@Nullable IdempotencyKeyTtl idempotencyKeyTtl) {
            this.idempotencyKeyTtl = idempotencyKeyTtl;
            return this;
        }

        public Builder singletonKey(@Nullable String singletonKey) {
            this.singletonKey = singletonKey;
            return this;
        }

        public Builder concurrencyKey(@Nullable String concurrencyKey) {
            this.concurrencyKey = concurrencyKey;
            return this;
        }

        public Builder queue(@Nullable String queue) {
            this.queue = queue;
            return this;
        }

        /**
         * Runs no earlier than this long after the trigger (database clock); exclusive with {@link #runAt}. At most
         * 1,000 years (S-ID-10).
         */
        public Builder delay(@Nullable Duration delay) {
            this.delay = delay;
            return this;
        }

        /**
         * Runs no earlier than this instant (database clock); exclusive with {@link #delay}. In the years 1 to 9999
         * (S-ID-10).
         */
        public Builder runAt(@Nullable Instant runAt) {
            this.runAt = runAt;
            return this;
        }

        /** What this trigger does when its singleton key is held (S-CP-1); overrides the task's policy. */
        public Builder onSingletonConflict(@Nullable SingletonConflictPolicy onSingletonConflict) {
            this.onSingletonConflict = onSingletonConflict;
            return this;
        }

        /** The signal name under which {@link SingletonConflictPolicy#SIGNAL_OWNER} delivers the payload (S-CP-4). */
        public Builder signalName(@Nullable String signalName) {
            this.signalName = signalName;
            return this;
        }

        /**
         * The run's priority, from -100 to 100 (S-PR-1, S-PR-2); a value out of range fails the trigger with {@link
         * ConfigurationInvalidException}.
         */
        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /**
         * Folds this trigger into the pending run of this debounce key (S-DB-1); overrides the task's resolver. Not
         * with {@link #delay} or {@link #runAt}: the debounce decides the start (S-DB-6).
         */
        public Builder debounceKey(@Nullable String debounceKey) {
            this.debounceKey = debounceKey;
            return this;
        }

        /** The debounce period for this call (S-DB-1), overriding {@code @Task(debounce)}. */
        public Builder debounce(@Nullable Duration debounce) {
            this.debounce = debounce;
            return this;
        }

        /** The longest postponement after a window's first trigger (S-DB-1), overriding the task's. */
        public Builder debounceMaxWait(@Nullable Duration debounceMaxWait) {
            this.debounceMaxWait = debounceMaxWait;
            return this;
        }

        /** The key the task's rate limit counts this trigger under (S-RT-1), overriding the task's resolver. */
        public Builder rateLimitKey(@Nullable String rateLimitKey) {
            this.rateLimitKey = rateLimitKey;
            return this;
        }

        /** The key the task's throttle counts this run's attempts under (S-TH-1), overriding the task's resolver. */
        public Builder throttleKey(@Nullable String throttleKey) {
            this.throttleKey = throttleKey;
            return this;
        }

        public TriggerOptions build() {
            return new TriggerOptions(this);
        }
    }
}
