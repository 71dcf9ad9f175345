package io.runlane;

import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Filters and paging for {@link RunOperations#list(RunQuery)} (S-OP-1). Runs come newest first; a page's
 * {@link Page#nextCursor()} continues after its last run, so paging returns every run that matched when paging
 * began exactly once, however many runs are created meanwhile.
 *
 * @param statuses statuses to include; empty means all
 * @param taskIds task ids to include; empty means all
 * @param queues queues to include; empty means all
 * @param idempotencyKey only runs with this idempotency key
 * @param singletonKey only runs with this singleton key
 * @param createdFrom only runs created at or after this instant
 * @param createdTo only runs created before this instant
 * @param finishedFrom only runs finished at or after this instant
 * @param finishedTo only runs finished before this instant
 * @param failureCodes only runs whose stored failure has one of these codes ({@link RunFailure#code()}: a {@code
 *     FAILED} run's, or the last failed attempt's of a {@code RETRYING} one); empty means any run, with or without a
 *     failure
 * @param sources only runs that came to be in one of these ways ({@link Run#source()}, S-OP-14); empty means all
 * @param scheduleId only runs the schedule with this id fired or triggered now ({@link Run#scheduleId()}, S-OP-14)
 * @param minPriority only runs whose {@link Run#priority()} is at least this, from -100 to 100 (S-OP-15)
 * @param maxPriority only runs whose {@link Run#priority()} is at most this, from -100 to 100 and not below {@code
 *     minPriority} (S-OP-15)
 * @param failureMessagePrefix only runs whose stored failure message ({@link RunFailure#message()}, the same failure
 *     as {@code failureCodes}) starts with this text, compared character by character, case-sensitive, {@code %} and
 *     {@code _} being plain characters (S-OP-15)
 * @param idempotencyKeyPrefix only runs whose idempotency key starts with this text, case-sensitive (S-OP-15)
 * @param singletonKeyPrefix only runs whose singleton key starts with this text, case-sensitive (S-OP-15)
 * @param limit the page size, clamped to 1..{@value #MAX_LIMIT}
 * @param cursor the {@link Page#nextCursor()} of the previous page, or {@code null} for the first page
 */
public record RunQuery(
        Set<RunStatus> statuses,
        List<String> taskIds,
        List<String> queues,
        @Nullable String idempotencyKey,
        @Nullable String singletonKey,
        @Nullable Instant createdFrom,
        @Nullable Instant createdTo,
        @Nullable Instant finishedFrom,
        @Nullable Instant finishedTo,
        Set<String> failureCodes,
        Set<RunSource> sources,
        @Nullable String scheduleId,
        @Nullable Integer minPriority,
        @Nullable Integer maxPriority,
        @Nullable String failureMessagePrefix,
        @Nullable String idempotencyKeyPrefix,
        @Nullable String singletonKeyPrefix,
        int limit,
        @Nullable String cursor) {

    public static final int DEFAULT_LIMIT = 50;

    public static final int MAX_LIMIT = 500;

    /** The longest {@link #failureMessagePrefix()}, in characters: the default length of a stored message. */
    public static final int MAX_MESSAGE_PREFIX_LENGTH = 1000;

    public RunQuery {
        statuses = statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
        taskIds = List.copyOf(taskIds);
        queues = List.copyOf(queues);
        // Not Set.copyOf: a null code is reported by the operation that validates the filters, naming the field.
        failureCodes =
                failureCodes.isEmpty() ? Set.of() : Collections.unmodifiableSet(new LinkedHashSet<>(failureCodes));
        if (sources.stream().anyMatch(Objects::isNull)) {
            throw new ConfigurationInvalidException("sources", "must not contain null");
        }
        sources = sources.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(sources));
        limit = Math.max(1, Math.min(MAX_LIMIT, limit));
    }

    /** Every run, first page, default size. */
    public static RunQuery all() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The same query for the page after {@code cursor}. */
    public RunQuery after(@Nullable String cursor) {
        return new RunQuery(
                statuses,
                taskIds,
                queues,
                idempotencyKey,
                singletonKey,
                createdFrom,
                createdTo,
                finishedFrom,
                finishedTo,
                failureCodes,
                sources,
                scheduleId,
                minPriority,
                maxPriority,
                failureMessagePrefix,
                idempotencyKeyPrefix,
                singletonKeyPrefix,
                limit,
                cursor);
    }

    /** Builds a {@link RunQuery}. */
    public static final class Builder {

        private Set<RunStatus> statuses = Set.of();
        private List<String> taskIds = List.of();
        private List<String> queues = List.of();
        private @Nullable String idempotencyKey;
        private @Nullable String singletonKey;
        private @Nullable Instant createdFrom;
        private @Nullable Instant createdTo;
        private @Nullable Instant finishedFrom;
        private @Nullable Instant finishedTo;
        private Set<String> failureCodes = Set.of();
        private Set<RunSource> sources = Set.of();
        private @Nullable String scheduleId;
        private @Nullable Integer minPriority;
        private @Nullable Integer maxPriority;
        private @Nullable String failureMessagePrefix;
        private @Nullable String idempotencyKeyPrefix;
        private @Nullable String singletonKeyPrefix;
        private int limit = DEFAULT_LIMIT;
        private @Nullable String cursor;

        private Builder() {}

        public Builder statuses(RunStatus... statuses) {
            this.statuses = Set.of(statuses);
            return this;
        }

        public Builder statuses(Set<RunStatus> statuses) {
            this.statuses = statuses;
            return this;
        }

        public Builder taskIds(String... taskIds) {
            this.taskIds = List.of(taskIds);
            return this;
        }

        public Builder queues(String... queues) {
            this.queues = List.of(queues);
            return this;
        }

        public Builder idempotencyKey(@Nullable String idempotencyKey) {
            this.idempotencyKey = idempotencyKey;
            return this;
        }

        public Builder singletonKey(@Nullable String singletonKey) {
            this.singletonKey = singletonKey;
            return this;
        }

        public Builder createdBetween(@Nullable Instant from, @Nullable Instant to) {
            this.createdFrom = from;
            this.createdTo = to;
            return this;
        }

        public Builder finishedBetween(@Nullable Instant from, @Nullable Instant to) {
            this.finishedFrom = from;
            this.finishedTo = to;
            return this;
        }

        /**
         * Only runs whose stored failure has one of these codes, such as {@code upstream_unavailable} (the {@link
         * RunlaneException#code()} of the exception the run failed with, {@code exception} for any other); none: any
         * run.
         */
        public Builder failureCodes(String... failureCodes) {
            this.failureCodes = new LinkedHashSet<>(Arrays.asList(failureCodes));
            return this;
        }

        /** Like {@link #failureCodes(String...)}. */
        public Builder failureCodes(Set<String> failureCodes) {
            this.failureCodes = failureCodes;
            return this;
        }

        /**
         * Only runs that came to be in one of these ways (S-OP-14), such as {@link RunSource#TRIGGER} to leave out
         * the runs of schedules, reruns, retries and forks; none: any run.
         */
        public Builder sources(RunSource... sources) {
            this.sources = new LinkedHashSet<>(Arrays.asList(sources));
            return this;
        }

        /** Like {@link #sources(RunSource...)}. */
        public Builder sources(Set<RunSource> sources) {
            this.sources = sources;
            return this;
        }

        /** Only the runs of the schedule with this id (S-OP-14); {@code null}: any run. */
        public Builder scheduleId(@Nullable String scheduleId) {
            this.scheduleId = scheduleId;
            return this;
        }

        /** Only runs of at least this priority, from -100 to 100 (S-OP-15). */
        public Builder minPriority(int minPriority) {
            this.minPriority = minPriority;
            return this;
        }

        /** Only runs of at most this priority, from -100 to 100 (S-OP-15). */
        public Builder maxPriority(int maxPriority) {
            this.maxPriority = maxPriority;
            return this;
        }

        /** Only runs of exactly this priority: {@link #minPriority(int)} and {@link #maxPriority(int)} both. */
        public Builder priority(int priority) {
            return minPriority(priority).maxPriority(priority);
        }

        /**
         * Only runs whose stored failure message starts with this text, such as {@code "Connection refused"}: a
         * literal, case-sensitive prefix (S-OP-15); {@code null}: any run.
         */
        public Builder failureMessagePrefix(@Nullable String failureMessagePrefix) {
            this.failureMessagePrefix = failureMessagePrefix;
            return this;
        }

        /**
         * Only runs whose idempotency key starts with this text, such as {@code "order-42."} (S-OP-15); {@code null}:
         * any run.
         */
        public Builder idempotencyKeyPrefix(@Nullable String idempotencyKeyPrefix) {
            this.idempotencyKeyPrefix = idempotencyKeyPrefix;
            return this;
        }

        /** Only runs whose singleton key starts with this text (S-OP-15); {@code null}: any run. */
        public Builder singletonKeyPrefix(@Nullable String singletonKeyPrefix) {
            this.singletonKeyPrefix = singletonKeyPrefix;
            return this;
        }

        public Builder limit(int limit) {
            this.limit = limit;
            return this;
        }

        public Builder cursor(@Nullable String cursor) {
            this.cursor = cursor;
            return this;
        }

        public RunQuery build() {
            return new RunQuery(
                    statuses,
                    taskIds,
                    queues,
                    idempotencyKey,
                    singletonKey,
                    createdFrom,
                    createdTo,
                    finishedFrom,
                    finishedTo,
                    failureCodes,
                    sources,
                    scheduleId,
                    minPriority,
                    maxPriority,
                    failureMessagePrefix,
                    idempotencyKeyPrefix,
                    singletonKeyPrefix,
                    limit,
                    cursor);
        }
    }
}
