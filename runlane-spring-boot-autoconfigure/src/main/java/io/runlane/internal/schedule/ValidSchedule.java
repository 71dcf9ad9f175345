package io.runlane.internal.schedule;

import io.runlane.CatchUpPolicy;
import io.runlane.OverlapPolicy;
import io.runlane.internal.registry.TaskDefinition;

/**
 * A schedule that passed every check of S-SC-5: its task exists, its recurrence parsed and its payload is valid JSON
 * of the task's payload type.
 *
 * @param id the schedule's id
 * @param task the task each occurrence triggers
 * @param recurrence when occurrences fall
 * @param payloadJson the payload as stored
 * @param overlap the overlap policy
 * @param catchUp the catch-up policy
 */
record ValidSchedule(
        String id,
        TaskDefinition task,
        Recurrence recurrence,
        String payloadJson,
        OverlapPolicy overlap,
        CatchUpPolicy catchUp) {}
