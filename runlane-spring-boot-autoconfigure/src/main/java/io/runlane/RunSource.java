package io.runlane;

/**
 * How a run came to be, for {@link RunQuery#sources()} and {@link Run#source()} (S-OP-14): a schedule that fires
 * every few seconds should not bury the runs callers triggered, and an operator looking for the reruns of an incident
 * should not page through the schedule's runs. Each run has exactly one source.
 */
public enum RunSource {

    /** Triggered by a caller ({@link RunlaneTemplate}): no source run and no schedule. */
    TRIGGER,

    /** Fired by a schedule, or by its {@link ScheduleOperations#triggerNow}; {@link Run#scheduleId()} names it. */
    SCHEDULE,

    /** A rerun of a finished run ({@link RunOperations#rerun}). */
    RERUN,

    /** A manual retry of a failed run ({@link RunOperations#retry}). */
    RETRY,

    /** A fork of a finished run from one of its steps ({@link RunOperations#fork}). */
    FORK
}
