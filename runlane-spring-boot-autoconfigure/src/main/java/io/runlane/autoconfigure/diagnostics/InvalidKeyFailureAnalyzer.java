package io.runlane.autoconfigure.diagnostics;

import io.runlane.InvalidKeyException;
import io.runlane.internal.kernel.Guarantees;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

/**
 * Reports an id or key that breaks S-ID-1 at start-up: a {@code runlane.*} property such as
 * {@code runlane.environment} or a queue declared under {@code runlane.queues}, or a key the application's start-up
 * code passed to Runlane.
 */
class InvalidKeyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidKeyException> {

    private static final String QUEUES = "runlane.queues.";

    private static final String RULE = "ids, queue names and keys are 1 to 255 characters without ':' or control"
            + " characters, and without surrounding whitespace (S-ID-1, " + Guarantees.link("S-ID-1") + ").";

    private final Environment environment;

    InvalidKeyFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidKeyException cause) {
        String field = cause.field();
        String reason = cause.getMessage()
                .substring(Math.min(field.length() + 1, cause.getMessage().length()));
        if (field.startsWith(QUEUES)) {
            String queue = field.substring(QUEUES.length());
            return new FailureAnalysis(
                    "Runlane queue '" + queue + "', declared under runlane.queues, has an invalid name: it " + reason,
                    "Rename the queue under runlane.queues (and in the @Task(queue) and runlane.worker.queues that"
                            + " name it): " + RULE,
                    cause);
        }
        if (field.startsWith("runlane.")) {
            Origin origin = PropertyOrigins.find(environment, field);
            return new FailureAnalysis(
                    "Invalid Runlane configuration property '" + field + "': it " + reason
                            + (origin != null ? "\n\n    Origin: " + origin : ""),
                    "Update the property '" + field + "' in your application's configuration: " + RULE,
                    cause);
        }
        return new FailureAnalysis(
                "The application passed Runlane an invalid " + field + " while starting: it " + reason,
                "Pass a valid " + field + ": " + RULE,
                cause);
    }
}
