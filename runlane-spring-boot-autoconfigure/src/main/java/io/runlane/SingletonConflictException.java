package io.runlane;

import java.util.UUID;

/** Another active run holds the singleton key (S-SK-2); nothing was written. */
public class SingletonConflictException extends RunlaneException {

    private final String taskId;

    private final String singletonKey;

    private final UUID ownerRunId;

    public SingletonConflictException(String taskId, String singletonKey, UUID ownerRunId) {
        super(
                "singleton_conflict",
                "Singleton key '" + singletonKey + "' of task '" + taskId + "' is held by active run " + ownerRunId);
        this.taskId = taskId;
        this.singletonKey = singletonKey;
        this.ownerRunId = ownerRunId;
    }

    public String taskId() {
        return taskId;
    }

    public String singletonKey() {
        return singletonKey;
    }

    /** The active run that holds the key. */
    public UUID ownerRunId() {
        return ownerRunId;
    }
}
