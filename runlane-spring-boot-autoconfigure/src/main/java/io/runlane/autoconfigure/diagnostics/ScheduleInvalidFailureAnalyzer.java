package io.runlane.autoconfigure.diagnostics;

import io.runlane.ScheduleInvalidException;
import io.runlane.internal.kernel.Guarantees;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

/**
 * Reports a declared schedule that is invalid (S-SC-5): the schedule, the field and the reason, where it was
 * declared (the {@code @Schedule} annotation's class, or the property and where it was set) and what a valid value
 * looks like, instead of the exception's whole stack.
 */
class ScheduleInvalidFailureAnalyzer extends AbstractFailureAnalyzer<ScheduleInvalidException> {

    private static final String DECLARED_BY = " (declared by ";

    private static final String ANNOTATION = "@Schedule on ";

    private static final String PROPERTIES = "runlane.schedules";

    private final Environment environment;

    ScheduleInvalidFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ScheduleInvalidException cause) {
        String reason = cause.reason();
        String declaredBy = null;
        int at = reason.lastIndexOf(DECLARED_BY);
        if (at >= 0 && reason.endsWith(")")) {
            declaredBy = reason.substring(at + DECLARED_BY.length(), reason.length() - 1);
            reason = reason.substring(0, at);
        }
        String property = property(cause, declaredBy);
        String annotatedClass = annotatedClass(declaredBy);
        StringBuilder description = new StringBuilder("Runlane schedule '")
                .append(cause.scheduleId())
                .append("' is invalid: ")
                .append(cause.field())
                .append(' ')
                .append(reason);
        String action;
        if (property != null) {
            Origin origin = PropertyOrigins.find(environment, property);
            description.append("\n\n    Property: ").append(property);
            if (origin != null) {
                description.append("\n    Origin:   ").append(origin);
            }
            action = "Update the property '" + property + "' in your application's configuration: " + hint(cause);
        } else if (annotatedClass != null) {
            description
                    .append("\n\n    Declared by: @Schedule(id = \"")
                    .append(cause.scheduleId())
                    .append("\") on ")
                    .append(annotatedClass);
            action = "Fix the @Schedule(id = \"" + cause.scheduleId() + "\") annotation on " + annotatedClass + ": "
                    + hint(cause);
        } else {
            action = "Correct the schedule's declaration: " + hint(cause);
        }
        return new FailureAnalysis(
                description.toString(), action + " (S-SC-5, " + Guarantees.link("S-SC-5") + ")", cause);
    }

    /** The property that set the invalid field, when configuration declared or overrode it. */
    private @Nullable String property(ScheduleInvalidException cause, @Nullable String declaredBy) {
        if (declaredBy == null || !declaredBy.contains(PROPERTIES)) {
            return null;
        }
        String id = cause.scheduleId();
        String prefix = id.indexOf('.') >= 0 ? PROPERTIES + "[" + id + "]" : PROPERTIES + "." + id;
        List<String> fields = switch (cause.field()) {
            case "cron/every" -> List.of("cron", "every");
            case "catchUp" -> List.of("catch-up");
            default -> List.of(cause.field().toLowerCase(Locale.ROOT));
        };
        for (String field : fields) {
            if (PropertyOrigins.isSet(environment, prefix + "." + field)) {
                return prefix + "." + field;
            }
        }
        return declaredBy.startsWith(ANNOTATION) ? null : prefix + "." + fields.get(0);
    }

    private static @Nullable String annotatedClass(@Nullable String declaredBy) {
        if (declaredBy == null || !declaredBy.startsWith(ANNOTATION)) {
            return null;
        }
        String rest = declaredBy.substring(ANNOTATION.length());
        int and = rest.indexOf(" and ");
        return and >= 0 ? rest.substring(0, and) : rest;
    }

    private static String hint(ScheduleInvalidException cause) {
        return switch (cause.field()) {
            case "cron" ->
                "use five fields (minute hour day-of-month month day-of-week, such as '0 2 * * *' for"
                        + " 02:00 every day), six with the seconds first ('0 0 2 * * *'), or a macro such as @hourly or"
                        + " @daily.";
            case "every" -> "use a duration of at least 1s in whole milliseconds, such as 30s, 15m or 1h.";
            case "cron/every" -> "set exactly one of cron and every.";
            case "zone" -> "use a time zone id such as UTC or Europe/Berlin.";
            case "task" -> "name the id of a @Task of this application.";
            case "payload" ->
                "give a JSON payload that converts to the task's payload type and meets its" + " constraints.";
            case "id" ->
                cause.reason().contains("declared twice")
                        ? "give each schedule its own id."
                        : "use an id of 1 to 200 characters without ':' or control characters, and without surrounding"
                                + " whitespace.";
            default -> "set a valid " + cause.field() + ".";
        };
    }
}
