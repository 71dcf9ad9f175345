package io.runlane.internal.schedule;

import io.runlane.CatchUpPolicy;
import io.runlane.Schedule;
import io.runlane.ScheduleInvalidException;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.TaskRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.core.annotation.AnnotatedElementUtils;

/** Reads the {@link Schedule @Schedule} declarations of the registered task classes (S-SC-1). */
public final class ScheduleAnnotations {

    private ScheduleAnnotations() {}

    /**
     * Every annotated schedule, by id. Two declarations of one id fail start-up naming both classes.
     *
     * @throws ScheduleInvalidException for a repeated id
     */
    public static Map<String, ScheduleDeclaration> read(TaskRegistry tasks) {
        Map<String, ScheduleDeclaration> declarations = new LinkedHashMap<>();
        for (TaskDefinition task : tasks.all()) {
            Class<?> type = task.handlerClass();
            for (Schedule schedule : AnnotatedElementUtils.findMergedRepeatableAnnotations(type, Schedule.class)) {
                String origin = "@Schedule on " + type.getName();
                ScheduleDeclaration declaration = new ScheduleDeclaration(
                        schedule.id(),
                        task.id(),
                        schedule.cron().isEmpty() ? null : schedule.cron(),
                        schedule.every().isEmpty() ? null : schedule.every(),
                        schedule.zone(),
                        schedule.payload(),
                        schedule.overlap(),
                        CatchUpPolicy.LATEST,
                        true,
                        origin);
                ScheduleDeclaration previous = declarations.putIfAbsent(schedule.id(), declaration);
                if (previous != null) {
                    throw new ScheduleInvalidException(
                            schedule.id(), "id", "is declared twice: by " + previous.origin() + " and by " + origin);
                }
            }
        }
        return declarations;
    }

    /** The annotated declarations with configuration on top (configuration wins field by field, S-SC-1). */
    public static List<ScheduleDeclaration> merge(
            Map<String, ScheduleDeclaration> annotated, Map<String, ScheduleDeclaration.Overrides> configured) {
        Map<String, ScheduleDeclaration> merged = new LinkedHashMap<>(annotated);
        configured.forEach((id, overrides) -> {
            String prefix = "runlane.schedules." + id;
            ScheduleDeclaration declared = annotated.get(id);
            merged.put(
                    id,
                    declared == null
                            ? ScheduleDeclaration.of(id, overrides, prefix)
                            : declared.overriddenBy(overrides, prefix));
        });
        return List.copyOf(merged.values());
    }
}
