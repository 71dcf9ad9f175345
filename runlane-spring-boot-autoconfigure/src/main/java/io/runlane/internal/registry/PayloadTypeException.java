package io.runlane.internal.registry;

import io.runlane.ConfigurationInvalidException;
import org.jspecify.annotations.Nullable;

/**
 * A task's payload type, or a {@code TaskFunction}'s result type, does not survive a round trip through the
 * application's JSON mapper (S-ID-11). Start-up fails with it, naming the task, the type, the property and the fix.
 */
public final class PayloadTypeException extends ConfigurationInvalidException {

    private final String taskId;

    private final Class<?> taskClass;

    private final String role;

    private final String declaredType;

    private final String type;

    private final @Nullable String path;

    private final @Nullable String property;

    private final String problem;

    private final String fix;

    PayloadTypeException(TaskDefinition task, String role, String declaredType, Violation violation) {
        super(
                "@Task " + task.handlerClass().getName(),
                "declares " + role + " type " + declaredType + ", which does not survive a round trip through JSON: "
                        + violation.summary() + " " + violation.fix(),
                violation.cause());
        this.taskId = task.id();
        this.taskClass = task.handlerClass();
        this.role = role;
        this.declaredType = declaredType;
        this.type = violation.type();
        this.path = violation.path();
        this.property = violation.property();
        this.problem = violation.problem();
        this.fix = violation.fix();
    }

    /** The task's id. */
    public String taskId() {
        return taskId;
    }

    /** The handler class that declares the task. */
    public Class<?> taskClass() {
        return taskClass;
    }

    /** {@code payload} or {@code result}. */
    public String role() {
        return role;
    }

    /** The payload or result type as the task declares it, generics included. */
    public String declaredType() {
        return declaredType;
    }

    /** The type at fault: the declared type itself, or a type it holds. */
    public String type() {
        return type;
    }

    /**
     * Where the type at fault sits in the declared type, such as {@code customer.address}; {@code null} when it is the
     * declared type itself.
     */
    public @Nullable String path() {
        return path;
    }

    /** The property of the type at fault that does not round-trip, or {@code null} when the fault is the type's. */
    public @Nullable String property() {
        return property;
    }

    /** What goes wrong, in a sentence. */
    public String problem() {
        return problem;
    }

    /** How to fix it, in a sentence. */
    public String fix() {
        return fix;
    }

    /** One fault found in a type, before the task it belongs to is known. */
    record Violation(
            String type,
            @Nullable String path,
            @Nullable String property,
            String problem,
            String fix,
            @Nullable Throwable cause) {

        /** {@code io.example.Address property 'street' (at customer.address): is written but …}. */
        String summary() {
            return type + (property != null ? " property '" + property + "'" : "")
                    + (path != null ? " (at " + path + ")" : "") + ": " + problem;
        }
    }
}
