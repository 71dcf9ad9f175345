package io.runlane;

import java.util.UUID;

/**
 * Sends signals to runs (S-SG): a mailbox per run and signal name, read by {@link RunContext#awaitSignal}. Every
 * method joins the caller's Spring transaction when one is active (S-TR-3): the signal is stored, and its run woken,
 * only when that transaction commits.
 */
public interface SignalOperations {

    /**
     * Stores a signal for an active run and wakes the run if it waits for this name (S-SG-1).
     *
     * @throws RunNotFoundException when no such run exists in this environment
     * @throws RunStateException when the run is terminal; nothing is stored
     * @throws InvalidKeyException when the name is not a valid key (S-ID-1)
     * @throws PayloadValidationException when the payload cannot be stored as JSON
     */
    void send(UUID runId, String name, Object payload);

    /**
     * Like {@link #send(UUID, String, Object)}, storing at most one signal per (run, name, deduplication key), under
     * any concurrency (S-SG-2).
     *
     * @return {@code true} when this call stored the signal, {@code false} when one with this key was stored before
     */
    boolean send(UUID runId, String name, Object payload, String deduplicationKey);

    /**
     * Delivers a signal to the active run holding the task's singleton key, found and signalled in one statement
     * (S-SG-3): the "resume" half of Workflow's {@code resumeHook(token)}.
     *
     * @return the id of the run that received it
     * @throws RunNotFoundException when no active run holds the key; nothing is stored
     */
    UUID sendToSingletonOwner(String taskId, String singletonKey, String name, Object payload);
}
