package io.runlane;

import java.util.List;
import java.util.Optional;

/** Reads and operates on the schedules of the configured environment (S-SC-5). */
public interface ScheduleOperations {

    /** Every schedule, in id order. */
    List<ScheduleInfo> list();

    /** The schedule with this id, or empty. */
    Optional<ScheduleInfo> get(String id);

    /**
     * Creates or changes a run-time schedule. A change keeps the next fire time unless the expression, the interval
     * or the zone changed. Everything is validated first; nothing is written when it fails.
     *
     * @throws ScheduleInvalidException naming the schedule and the field
     * @throws ScheduleDeclaredException when the id belongs to a declared schedule, which only its declaration changes
     */
    ScheduleInfo upsert(ScheduleDefinition definition);

    /**
     * Deletes a schedule; returns false when there is none. A declared schedule that the application still declares
     * comes back at its next start-up. Runs it created are left alone.
     */
    boolean delete(String id);

    /**
     * Holds back the schedule's occurrences until {@link #resume}; missed ones then follow its catch-up policy.
     *
     * @throws ScheduleNotFoundException when there is no such schedule
     */
    void pause(String id);

    /**
     * Lets a paused schedule fire again.
     *
     * @throws ScheduleNotFoundException when there is no such schedule
     */
    void resume(String id);

    /**
     * Triggers one run of the schedule's task and payload now, outside its occurrence sequence: the next fire time,
     * the last run and the overlap policy are left alone, and the run has no idempotency key. It is a trigger like any
     * other: where a scheduled fire would be skipped, it fails to its caller (S-SC-11).
     *
     * @throws ScheduleNotFoundException when there is no such schedule
     * @throws RateLimitExceededException when the task's rate limit has no room (S-RT-2); nothing is written
     * @throws SingletonConflictException when another active run holds the task's singleton key and its conflict
     *     policy is {@code FAIL} (S-SK-2)
     */
    TriggerResult triggerNow(String id);
}
