package io.runlane.internal.schedule;

import io.runlane.RunlaneException;
import io.runlane.ScheduleDefinition;
import io.runlane.ScheduleInvalidException;
import io.runlane.TaskNotFoundException;
import io.runlane.internal.kernel.KeyRules;
import io.runlane.internal.kernel.TimeRules;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * Checks a schedule before anything is written (S-SC-5): the id (S-ID-1, short enough to leave room for the
 * occurrence in the idempotency key), the task, exactly one of cron and interval, the expression, the zone, the
 * interval (whole milliseconds, at least one second) and the payload (the task's type and its constraints, S-ID-4).
 * Every failure is a {@link ScheduleInvalidException} naming the schedule and the field.
 */
final class ScheduleValidator {

    /** Leaves room in the 255-character key for {@code schedule.<id>.<epoch millis>} (S-SC-2). */
    static final int MAX_ID_LENGTH = 200;

    static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

    private final TaskRegistry tasks;

    private final PayloadCodec payloads;

    ScheduleValidator(TaskRegistry tasks, PayloadCodec payloads) {
        this.tasks = tasks;
        this.payloads = payloads;
    }

    ValidSchedule validate(ScheduleDefinition definition) {
        String id = requireId(definition.id());
        TaskDefinition task = requireTask(id, definition.taskId());
        Recurrence recurrence = recurrence(id, definition.cron(), definition.every(), definition.zone());
        String json = payload(id, task, typed -> payloads.typedAndValid(task, definition.payload()));
        return new ValidSchedule(id, task, recurrence, json, definition.overlap(), definition.catchUp());
    }

    /** Validates a declaration; a failure names where it was declared (the class or the property prefix). */
    ValidSchedule validate(ScheduleDeclaration declaration) {
        try {
            return validateDeclared(declaration);
        } catch (ScheduleInvalidException ex) {
            throw new ScheduleInvalidException(
                    ex.scheduleId(),
                    ex.field(),
                    ex.reason() + " (declared by " + declaration.origin() + ")",
                    ex.getCause() != null ? ex.getCause() : ex);
        }
    }

    private ValidSchedule validateDeclared(ScheduleDeclaration declaration) {
        String id = requireId(declaration.id());
        TaskDefinition task = requireTask(id, declaration.taskId());
        ZoneId zone;
        try {
            zone = ZoneId.of(declaration.zone());
        } catch (DateTimeException ex) {
            throw new ScheduleInvalidException(
                    id, "zone", "is not a time zone id: '" + declaration.zone() + "' (" + ex.getMessage() + ")", ex);
        }
        Duration every = declaration.every() == null ? null : interval(id, declaration.every());
        Recurrence recurrence = recurrence(id, declaration.cron(), every, zone);
        String json = payload(id, task, typed -> payloads.fromJson(task, declaration.payload()));
        return new ValidSchedule(
                id,
                task,
                recurrence,
                json,
                requireNonNull(id, "overlap", declaration.overlap()),
                requireNonNull(id, "catchUp", declaration.catchUp()));
    }

    private static String requireId(@Nullable String id) {
        String reason = KeyRules.violation(id);
        if (reason != null) {
            throw new ScheduleInvalidException(String.valueOf(id), "id", reason);
        }
        if (id.codePointCount(0, id.length()) > MAX_ID_LENGTH) {
            throw new ScheduleInvalidException(id, "id", "must be at most " + MAX_ID_LENGTH + " characters");
        }
        return id;
    }

    /** The schedule's task; a {@link ScheduleInvalidException} naming the schedule when it is unknown here. */
    TaskDefinition task(String id, @Nullable String taskId) {
        return requireTask(id, taskId);
    }

    private TaskDefinition requireTask(String id, @Nullable String taskId) {
        if (taskId == null || taskId.isBlank()) {
            throw new ScheduleInvalidException(id, "task", "must name a task");
        }
        try {
            return tasks.require(taskId);
        } catch (TaskNotFoundException ex) {
            throw new ScheduleInvalidException(id, "task", "names no registered task: '" + taskId + "'", ex);
        }
    }

    private static Recurrence recurrence(
            String id, @Nullable String cron, @Nullable Duration every, @Nullable ZoneId zone) {
        boolean hasCron = cron != null && !cron.isBlank();
        if (hasCron == (every != null)) {
            throw new ScheduleInvalidException(
                    id, "cron/every", hasCron ? "are both set; set exactly one" : "are both empty; set exactly one");
        }
        ZoneId inZone = requireNonNull(id, "zone", zone);
        if (every != null) {
            if (every.compareTo(MIN_INTERVAL) < 0 || every.getNano() % 1_000_000 != 0) {
                throw new ScheduleInvalidException(
                        id, "every", "must be at least 1s in whole milliseconds, but was " + every);
            }
            String tooLong = TimeRules.violation(every);
            if (tooLong != null) {
                throw new ScheduleInvalidException(id, "every", tooLong);
            }
            return Recurrence.every(every);
        }
        Recurrence parsed;
        try {
            parsed = Recurrence.cron(cron, inZone);
        } catch (IllegalArgumentException ex) {
            throw new ScheduleInvalidException(
                    id, "cron", "is not a valid cron expression: '" + cron + "' (" + ex.getMessage() + ")", ex);
        }
        if (parsed.first(Instant.now()) == null) {
            throw new ScheduleInvalidException(id, "cron", "never matches: '" + cron + "'");
        }
        return parsed;
    }

    private static Duration interval(String id, String text) {
        try {
            return DurationFormatterUtils.detectAndParse(text);
        } catch (IllegalArgumentException ex) {
            throw new ScheduleInvalidException(id, "every", "is not a duration such as 30s or 15m: '" + text + "'", ex);
        }
    }

    private String payload(String id, TaskDefinition task, Function<TaskDefinition, Object> typed) {
        try {
            return payloads.toJson(task, typed.apply(task));
        } catch (RunlaneException ex) {
            throw new ScheduleInvalidException(id, "payload", "is invalid: " + ex.getMessage(), ex);
        }
    }

    private static <T> T requireNonNull(String id, String field, @Nullable T value) {
        if (value == null) {
            throw new ScheduleInvalidException(id, field, "must not be null");
        }
        return value;
    }
}
