package io.runlane;

import org.jspecify.annotations.Nullable;

/** A declaration, a property or a per-call option is invalid; the message names the field and the reason. */
public class ConfigurationInvalidException extends RunlaneException {

    private final String field;

    private final String reason;

    public ConfigurationInvalidException(String field, String reason) {
        this(field, reason, null);
    }

    public ConfigurationInvalidException(String field, String reason, @Nullable Throwable cause) {
        super("configuration_invalid", field + " " + reason, cause);
        this.field = field;
        this.reason = reason;
    }

    /** What is invalid: a property name such as {@code runlane.worker.queues}, a declaration or an option. */
    public String field() {
        return field;
    }

    /** Why it is invalid. */
    public String reason() {
        return reason;
    }
}
