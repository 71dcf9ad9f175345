package io.runlane.internal.schedule;

import io.runlane.CatchUpPolicy;
import io.runlane.OverlapPolicy;
import io.runlane.RunStatus;
import io.runlane.ScheduleInfo;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** A row of the schedules table, with the status of its last run (S-SC-5). */
record StoredSchedule(
        String id,
        String taskId,
        @Nullable String cron,
        @Nullable Long everyMs,
        String zone,
        String payloadJson,
        OverlapPolicy overlap,
        CatchUpPolicy catchUp,
        boolean paused,
        boolean declared,
        @Nullable Instant nextFireAt,
        @Nullable Instant lastFireAt,
        @Nullable UUID lastRunId,
        @Nullable RunStatus lastRunStatus,
        long skippedCount) {

    /** The stored recurrence; rows are only written after validation, so it parses. */
    Recurrence recurrence() {
        return cron != null
                ? Recurrence.cron(cron, ZoneId.of(zone))
                : Recurrence.every(Duration.ofMillis(everyMs == null ? 0 : everyMs));
    }

    ScheduleInfo info() {
        return new ScheduleInfo(
                id,
                taskId,
                cron != null ? cron : recurrence().expression(),
                ZoneId.of(zone),
                overlap,
                paused,
                nextFireAt,
                lastFireAt,
                lastRunId,
                skippedCount,
                catchUp,
                lastRunStatus,
                declared);
    }
}
