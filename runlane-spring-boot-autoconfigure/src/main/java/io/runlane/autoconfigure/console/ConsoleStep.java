package io.runlane.autoconfigure.console;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.runlane.RunStep;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A completed step as the console shows it: the {@link RunStep} and, for the steps the engine records for a wait
 * rather than the handler's own, which wait it belongs to (S-CO-11). The page lists those under "Waits", not "Steps".
 *
 * @param resultJson the recorded result as JSON (S-CO-8)
 * @param waiting the wait this step records, or {@code null} for a step of the handler
 */
record ConsoleStep(
        String name,
        int occurrence,
        String stepId,
        Instant completedAt,
        @JsonRawValue @Nullable String resultJson,
        @Nullable Wait waiting) {

    static final String SIGNAL_PREFIX = "awaitSignal.";

    static final String RESULT_PREFIX = "awaitResult.";

    static final String DEADLINE_SUFFIX = ".deadline";

    /**
     * Tags a step: {@code awaitSignal.<name>} is a signal wait's outcome and {@code awaitSignal.<name>.deadline} its
     * deadline, {@code awaitResult.<run id>} and {@code awaitResult.<run id>.deadline} likewise for a wait for a run's
     * result; a step that parked the run as a sleep ({@code sleep}) records the sleep's end.
     */
    static ConsoleStep of(RunStep step, boolean sleep) {
        return new ConsoleStep(
                step.name(),
                step.occurrence(),
                step.stepId(),
                step.completedAt(),
                step.resultJson(),
                wait(step, sleep));
    }

    private static @Nullable Wait wait(RunStep step, boolean sleep) {
        String name = step.name();
        String kind = name.startsWith(SIGNAL_PREFIX) ? "signal" : name.startsWith(RESULT_PREFIX) ? "result" : null;
        if (kind == null) {
            return sleep ? new Wait("sleep", name, "until") : null;
        }
        String subject = name.substring(kind.equals("signal") ? SIGNAL_PREFIX.length() : RESULT_PREFIX.length());
        if (subject.endsWith(DEADLINE_SUFFIX)) {
            return new Wait(kind, subject.substring(0, subject.length() - DEADLINE_SUFFIX.length()), "deadline");
        }
        return new Wait(kind, subject, "outcome");
    }

    /**
     * Which wait a step records.
     *
     * @param kind {@code signal} (awaitSignal), {@code result} (awaitResult) or {@code sleep}
     * @param subject the signal's name, the awaited run's id, or the sleep's name
     * @param role {@code deadline} (the wait's deadline), {@code outcome} (how it ended) or {@code until} (a sleep's
     *     end)
     */
    record Wait(String kind, String subject, String role) {}
}
