package io.runlane;

import org.jspecify.annotations.Nullable;

/** A schedule definition is invalid (S-SC-5); the message names the schedule, the field and the reason. */
public class ScheduleInvalidException extends RunlaneException {

    private final String scheduleId;

    private final String field;

    private final String reason;

    public ScheduleInvalidException(String scheduleId, String field, String reason) {
        this(scheduleId, field, reason, null);
    }

    public ScheduleInvalidException(String scheduleId, String field, String reason, @Nullable Throwable cause) {
        super("schedule_invalid", "Schedule '" + scheduleId + "': " + field + " " + reason, cause);
        this.scheduleId = scheduleId;
        this.field = field;
        this.reason = reason;
    }

    public String scheduleId() {
        return scheduleId;
    }

    /** The invalid field, such as {@code cron}, {@code zone} or {@code payload}. */
    public String field() {
        return field;
    }

    /** Why the field is invalid. */
    public String reason() {
        return reason;
    }
}
