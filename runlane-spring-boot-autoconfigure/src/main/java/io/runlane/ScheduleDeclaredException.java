package io.runlane;

/**
 * A run-time change was asked of a declared schedule, which only its declaration ({@link Schedule @Schedule} or
 * {@code runlane.schedules.<id>.*}) changes (S-SC-8). Nothing was written.
 */
public class ScheduleDeclaredException extends RunlaneException {

    public ScheduleDeclaredException(String scheduleId) {
        super(
                "schedule_declared",
                "Schedule '" + scheduleId + "' is declared by the application; change its declaration instead");
    }
}
