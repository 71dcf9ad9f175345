package io.runlane.autoconfigure.console;

import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.ScheduleInfo;
import io.runlane.ScheduleNotFoundException;
import io.runlane.ScheduleOperations;
import io.runlane.internal.engine.RunlaneEngine;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The console's schedules (S-CO-1, S-CO-2, S-SC-5): {@code GET api/schedules} lists them with their next and last
 * fire, paused state, skips and whether they are overdue; {@code POST api/schedules/{id}/pause|resume|trigger} acts
 * through {@link ScheduleOperations} (behind {@link ConsoleActions#guard()}).
 */
final class ConsoleSchedules {

    /**
     * A schedule is overdue once its next occurrence is late by this many schedule poll intervals: the threshold the
     * {@code runlane} health indicator uses, so that both agree.
     */
    static final int OVERDUE_POLLS = 3;

    private final RunlaneEngine engine;

    private final ConsoleSettings settings;

    ConsoleSchedules(RunlaneEngine engine, ConsoleSettings settings) {
        this.engine = engine;
        this.settings = settings;
    }

    /** The overview's summary: how many schedules, how many paused, which are overdue. */
    SchedulesSummary summary() {
        List<ScheduleInfo> schedules = operations().list();
        return new SchedulesSummary(
                schedules.size(),
                schedules.stream().filter(ScheduleInfo::paused).count(),
                overdue());
    }

    ServerResponse list(ServerRequest request) {
        Set<String> overdue = Set.copyOf(overdue());
        List<ScheduleView> schedules = operations().list().stream()
                .map(schedule -> ScheduleView.of(schedule, overdue.contains(schedule.id()), settings.unrestricted()))
                .toList();
        return ConsoleResponses.json(new SchedulesPage(schedules));
    }

    /** {@code POST api/schedules/{id}/pause|resume|trigger}; a trigger answers the new run's id. */
    ServerResponse act(ServerRequest request) {
        String id = request.pathVariable("scheduleId");
        ScheduleOperations schedules = operations();
        UUID runId = null;
        switch (request.pathVariable("action")) {
            case "pause" -> schedules.pause(id);
            case "resume" -> schedules.resume(id);
            case "trigger" -> runId = schedules.triggerNow(id).runId();
            default -> throw new ConsoleRequestException("Unknown action; use pause, resume or trigger");
        }
        ScheduleInfo schedule = schedules.get(id).orElseThrow(() -> new ScheduleNotFoundException(id));
        boolean overdue = overdue().contains(id);
        return ConsoleResponses.json(
                new ScheduleActionResult(ScheduleView.of(schedule, overdue, settings.unrestricted()), runId));
    }

    private List<String> overdue() {
        return engine.schedules().overdue(OVERDUE_POLLS);
    }

    private ScheduleOperations operations() {
        RunlaneTemplate template = engine.template();
        return template.schedules();
    }

    /** The overview's schedules card. */
    record SchedulesSummary(long total, long paused, List<String> overdue) {}

    /** The schedules page. */
    record SchedulesPage(List<ScheduleView> schedules) {}

    /** The answer to a schedule action; {@code runId} is the run a trigger created. */
    record ScheduleActionResult(
            ScheduleView schedule, @Nullable UUID runId) {}

    /**
     * A schedule as the console shows it.
     *
     * @param overdue whether its next occurrence is late (S-SC-5)
     * @param actions what the operator may do now; all false in read-only mode
     */
    record ScheduleView(
            String id,
            String taskId,
            String expression,
            String zone,
            String overlap,
            String catchUp,
            boolean paused,
            boolean declared,
            @Nullable Instant nextFireAt,
            @Nullable Instant lastFireAt,
            @Nullable UUID lastRunId,
            @Nullable RunStatus lastRunStatus,
            long skippedCount,
            boolean overdue,
            ScheduleActions actions) {

        static ScheduleView of(ScheduleInfo schedule, boolean overdue, boolean unrestricted) {
            return new ScheduleView(
                    schedule.id(),
                    schedule.taskId(),
                    schedule.expression(),
                    zoneName(schedule),
                    schedule.overlap().name(),
                    schedule.catchUp().name(),
                    schedule.paused(),
                    schedule.declared(),
                    schedule.nextFireAt(),
                    schedule.lastFireAt(),
                    schedule.lastRunId(),
                    schedule.lastRunStatus(),
                    schedule.skippedCount(),
                    overdue,
                    new ScheduleActions(
                            unrestricted && !schedule.paused(), unrestricted && schedule.paused(), unrestricted));
        }
    }

    private static String zoneName(ScheduleInfo schedule) {
        String id = schedule.zone().normalized().getId();
        return "Z".equals(id) ? "UTC" : id;
    }

    /** The schedule actions offered. */
    record ScheduleActions(boolean pause, boolean resume, boolean trigger) {}
}
