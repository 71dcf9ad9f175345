package io.runlane;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A run-time schedule for {@link ScheduleOperations#upsert}: a task, a cron expression or an interval, a zone, a
 * payload and its policies. Immutable; validated when it is upserted (S-SC-5).
 */
public final class ScheduleDefinition {

    private final String id;
    private final String taskId;
    private final @Nullable String cron;
    private final @Nullable Duration every;
    private final ZoneId zone;
    private final Object payload;
    private final OverlapPolicy overlap;
    private final CatchUpPolicy catchUp;

    private ScheduleDefinition(Builder builder) {
        this.id = builder.id;
        this.taskId = builder.taskId;
        this.cron = builder.cron;
        this.every = builder.every;
        this.zone = builder.zone;
        this.payload = builder.payload;
        this.overlap = builder.overlap;
        this.catchUp = builder.catchUp;
    }

    /** A builder for the schedule with this id that triggers the task with this id. */
    public static Builder builder(String id, String taskId) {
        return new Builder(id, taskId);
    }

    public String id() {
        return id;
    }

    public String taskId() {
        return taskId;
    }

    public @Nullable String cron() {
        return cron;
    }

    public @Nullable Duration every() {
        return every;
    }

    public ZoneId zone() {
        return zone;
    }

    public Object payload() {
        return payload;
    }

    public OverlapPolicy overlap() {
        return overlap;
    }

    public CatchUpPolicy catchUp() {
        return catchUp;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ScheduleDefinition that
                && id.equals(that.id)
                && taskId.equals(that.taskId)
                && Objects.equals(cron, that.cron)
                && Objects.equals(every, that.every)
                && zone.equals(that.zone)
                && payload.equals(that.payload)
                && overlap == that.overlap
                && catchUp == that.catchUp;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, taskId, cron, every, zone, payload, overlap, catchUp);
    }

    @Override
    public String toString() {
        return "ScheduleDefinition[id=" + id + ", taskId=" + taskId + ", cron=" + cron + ", every=" + every + ", zone="
                + zone + ", overlap=" + overlap + ", catchUp=" + catchUp + "]";
    }

    /** Builds a {@link ScheduleDefinition}; exactly one of {@link #cron} and {@link #every} must be set. */
    public static final class Builder {

        private final String id;
        private final String taskId;
        private @Nullable String cron;
        private @Nullable Duration every;
        private ZoneId zone = ZoneOffset.UTC;
        private Object payload = Map.of();
        private OverlapPolicy overlap = OverlapPolicy.SKIP;
        private CatchUpPolicy catchUp = CatchUpPolicy.LATEST;

        private Builder(String id, String taskId) {
            this.id = id;
            this.taskId = taskId;
        }

        /** A cron expression: 6 fields, 5 fields (second 0), or a macro such as {@code @daily}. */
        public Builder cron(@Nullable String cron) {
            this.cron = cron;
            return this;
        }

        /** A fixed interval from one occurrence to the next. */
        public Builder every(@Nullable Duration every) {
            this.every = every;
            return this;
        }

        /** The zone the cron expression is read in; UTC by default. */
        public Builder zone(ZoneId zone) {
            this.zone = Objects.requireNonNull(zone, "zone");
            return this;
        }

        /** The payload of each run: an instance of the task's payload type or anything that converts to it. */
        public Builder payload(Object payload) {
            this.payload = Objects.requireNonNull(payload, "payload");
            return this;
        }

        public Builder overlap(OverlapPolicy overlap) {
            this.overlap = Objects.requireNonNull(overlap, "overlap");
            return this;
        }

        public Builder catchUp(CatchUpPolicy catchUp) {
            this.catchUp = Objects.requireNonNull(catchUp, "catchUp");
            return this;
        }

        public ScheduleDefinition build() {
            return new ScheduleDefinition(this);
        }
    }
}
