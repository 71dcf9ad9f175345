package io.runlane;

import java.time.Instant;
import java.time.ZoneId;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A schedule as stored (S-SC-5).
 *
 * @param id the schedule's id
 * @param taskId the task each occurrence triggers
 * @param expression the cron expression as declared, or {@code every <interval>} such as {@code every 30s}
 * @param zone the zone of the cron expression (UTC for intervals)
 * @param overlap what an occurrence does while the previous run is active
 * @param paused whether occurrences are held back
 * @param nextFireAt the next occurrence, or {@code null} when the expression has none
 * @param lastFireAt the last occurrence that was fired (a run created or skipped), if any
 * @param lastRunId the run of the last fired occurrence, if any
 * @param skippedCount how many occurrences were skipped because the previous run was active
 * @param catchUp what the schedule does with missed occurrences
 * @param lastRunStatus the current status of {@code lastRunId}, or {@code null} when there is none (or it was pruned)
 * @param declared whether the schedule comes from a declaration ({@link Schedule @Schedule} or configuration) rather
 *     than from {@link ScheduleOperations#upsert}
 */
public record ScheduleInfo(
        String id,
        String taskId,
        String expression,
        ZoneId zone,
        OverlapPolicy overlap,
        boolean paused,
        @Nullable Instant nextFireAt,
        @Nullable Instant lastFireAt,
        @Nullable UUID lastRunId,
        long skippedCount,
        CatchUpPolicy catchUp,
        @Nullable RunStatus lastRunStatus,
        boolean declared) {}
