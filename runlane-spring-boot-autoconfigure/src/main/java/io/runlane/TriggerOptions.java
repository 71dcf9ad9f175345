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
                && Objects.equals(priority, that.priority);
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
                priority);
    }

    @Override
    public String toString() {
        return "TriggerOptions[idempotencyKey=" + idempotencyKey + ", idempotencyKeyTtl=" + idempotencyKeyTtl
                + ", singletonKey=" + singletonKey + ", concurrencyKey=" + concurrencyKey + ", queue=" + queue
                + ", delay=" + delay + ", runAt=" + runAt + ", onSingletonConflict=" + onSingletonConflict
                + ", signalName=" + signalName + ", priority=" + priority + "]";
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

        public TriggerOptions build() {
            return new TriggerOptions(this);
        }
    }
}
