package io.runlane;

import org.jspecify.annotations.Nullable;

/** A declaration, a property or a per-call option is invalid; the message names the field and the reason. */
public class ConfigurationInvalidException extends RunlaneException {

    public ConfigurationInvalidException(String field, String reason) {
        this(field, reason, null);
    }

    public ConfigurationInvalidException(String field, String reason, @Nullable Throwable cause) {
        super("configuration_invalid", field + " " + reason, cause);
    }
}
