package io.runlane.internal.schedule;

import io.runlane.CatchUpPolicy;
import io.runlane.OverlapPolicy;
import org.jspecify.annotations.Nullable;

/**
 * A schedule as the application declares it, in text: from a {@link io.runlane.Schedule @Schedule} annotation, from
 * {@code runlane.schedules.<id>.*}, or both merged (configuration wins field by field, S-SC-1).
 *
 * @param id the schedule's id
 * @param taskId the task, or {@code null} when the configuration names none and no annotation gives it
 * @param cron the cron expression, or {@code null}
 * @param every the interval text such as {@code 30s}, or {@code null}
 * @param zone the zone id text
 * @param payload the payload as JSON text
 * @param overlap the overlap policy
 * @param catchUp the catch-up policy
 * @param enabled whether the schedule is declared at all ({@code enabled=false} withdraws it)
 * @param origin where it was declared, for error messages: a class name or a property prefix
 */
public record ScheduleDeclaration(
        String id,
        @Nullable String taskId,
        @Nullable String cron,
        @Nullable String every,
        String zone,
        String payload,
        OverlapPolicy overlap,
        CatchUpPolicy catchUp,
        boolean enabled,
        String origin) {

    /** Properties bound from {@code runlane.schedules.<id>.*}; each unset field keeps the annotation's value. */
    public record Overrides(
            @Nullable String task,
            @Nullable String cron,
            @Nullable String every,
            @Nullable String zone,
            @Nullable String payload,
            @Nullable OverlapPolicy overlap,
            @Nullable CatchUpPolicy catchUp,
            @Nullable Boolean enabled) {}

    /**
     * This declaration with configuration on top. Setting {@code cron} in configuration clears the annotation's
     * {@code every} and the other way round, so that a configured expression replaces a declared interval.
     */
    ScheduleDeclaration overriddenBy(Overrides overrides, String prefix) {
        boolean cronSet = overrides.cron() != null;
        boolean everySet = overrides.every() != null;
        return new ScheduleDeclaration(
                id,
                overrides.task() != null ? overrides.task() : taskId,
                cronSet ? overrides.cron() : everySet ? null : cron,
                everySet ? overrides.every() : cronSet ? null : every,
                overrides.zone() != null ? overrides.zone() : zone,
                overrides.payload() != null ? overrides.payload() : payload,
                overrides.overlap() != null ? overrides.overlap() : overlap,
                overrides.catchUp() != null ? overrides.catchUp() : catchUp,
                overrides.enabled() != null ? overrides.enabled() : enabled,
                origin + " and " + prefix);
    }

    /** A declaration made by configuration alone. */
    static ScheduleDeclaration of(String id, Overrides overrides, String prefix) {
        return new ScheduleDeclaration(
                id,
                overrides.task(),
                overrides.cron(),
                overrides.every(),
                overrides.zone() != null ? overrides.zone() : "UTC",
                overrides.payload() != null ? overrides.payload() : "{}",
                overrides.overlap() != null ? overrides.overlap() : OverlapPolicy.SKIP,
                overrides.catchUp() != null ? overrides.catchUp() : CatchUpPolicy.LATEST,
                overrides.enabled() == null || overrides.enabled(),
                prefix);
    }
}
