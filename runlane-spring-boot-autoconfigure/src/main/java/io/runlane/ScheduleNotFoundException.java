package io.runlane;

/** No schedule with this id exists in the configured environment. */
public class ScheduleNotFoundException extends RunlaneException {

    public ScheduleNotFoundException(String scheduleId) {
        super("schedule_not_found", "No schedule '" + scheduleId + "' exists");
    }
}
