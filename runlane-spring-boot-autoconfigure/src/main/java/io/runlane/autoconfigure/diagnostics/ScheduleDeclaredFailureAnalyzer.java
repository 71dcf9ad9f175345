package io.runlane.autoconfigure.diagnostics;

import io.runlane.ScheduleDeclaredException;
import io.runlane.internal.kernel.Guarantees;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports start-up code that changes a declared schedule at run time (S-SC-8): a runner that calls {@code upsert}
 * for an id that {@code @Schedule} or {@code runlane.schedules.*} already declares.
 */
class ScheduleDeclaredFailureAnalyzer extends AbstractFailureAnalyzer<ScheduleDeclaredException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ScheduleDeclaredException cause) {
        return new FailureAnalysis(
                cause.getMessage() + ", but the application's start-up code changed it at run time"
                        + " (RunlaneTemplate.schedules().upsert).",
                "Change the schedule's @Schedule annotation or its runlane.schedules.<id>.* properties instead, or"
                        + " give the schedule created at run time an id of its own (S-SC-8, "
                        + Guarantees.link("S-SC-8") + ").",
                cause);
    }
}
