package io.runlane.internal.registry;

import io.runlane.ConfigurationInvalidException;
import org.jspecify.annotations.Nullable;

/** A {@code @Task} declaration is invalid; fails start-up with a message naming the task class (S-ID-2). */
public final class TaskDeclarationException extends ConfigurationInvalidException {

    private final Class<?> taskClass;

    public TaskDeclarationException(Class<?> taskClass, String reason) {
        this(taskClass, reason, null);
    }

    public TaskDeclarationException(Class<?> taskClass, String reason, @Nullable Throwable cause) {
        super("@Task " + taskClass.getName(), reason, cause);
        this.taskClass = taskClass;
    }

    /** The class whose declaration is invalid. */
    public Class<?> taskClass() {
        return taskClass;
    }
}
