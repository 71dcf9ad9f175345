package io.runlane;

import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
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
        int limit,
        @Nullable String cursor) {

    public static final int DEFAULT_LIMIT = 50;

    public static final int MAX_LIMIT = 500;

    public RunQuery {
        statuses = statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
        taskIds = List.copyOf(taskIds);
        queues = List.copyOf(queues);
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
                    limit,
                    cursor);
        }
    }
}
