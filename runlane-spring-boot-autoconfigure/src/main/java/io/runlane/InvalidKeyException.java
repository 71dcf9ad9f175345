package io.runlane;

/** An id or key breaks the rules of S-ID-1; the message names the field and the reason. */
public class InvalidKeyException extends RunlaneException {

    private final String field;

    public InvalidKeyException(String field, String reason) {
        super("invalid_key", field + " " + reason);
        this.field = field;
    }

    /** The field that holds the invalid value, such as {@code idempotencyKey}. */
    public String field() {
        return field;
    }
}
