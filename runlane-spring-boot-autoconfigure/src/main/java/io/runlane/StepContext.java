package io.runlane;

import java.util.UUID;

/** What a running step knows about itself (S-ST-2). */
public interface StepContext {

    /** The run the step belongs to. */
    UUID runId();

    /** The step's name as the handler gave it. */
    String name();

    /** Which call of this name during one execution of the handler it is, starting at 1. */
    int occurrence();

    /**
     * The step's stable id: derived from run id, name and occurrence, the same in every attempt of the run and
     * different in every other run. A valid key under S-ID-1, meant as the idempotency key of the external call the
     * step makes (or of a child trigger).
     */
    String stepId();
}
