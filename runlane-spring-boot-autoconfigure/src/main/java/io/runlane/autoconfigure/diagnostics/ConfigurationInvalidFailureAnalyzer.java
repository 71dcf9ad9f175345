package io.runlane.autoconfigure.diagnostics;

import io.runlane.ConfigurationInvalidException;
import io.runlane.internal.kernel.Guarantees;
import io.runlane.internal.registry.PayloadTypeException;
import io.runlane.internal.registry.TaskDeclarationException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

/**
 * Reports an invalid {@code @Task} declaration (the class to fix) or an invalid {@code runlane.*} property (where it
 * was set). A property that fails binding or a Jakarta constraint is left to Boot's own bind analyzers, a payload
 * type that does not round-trip to {@link PayloadTypeFailureAnalyzer}.
 */
class ConfigurationInvalidFailureAnalyzer extends AbstractFailureAnalyzer<ConfigurationInvalidException> {

    private final Environment environment;

    ConfigurationInvalidFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, ConfigurationInvalidException cause) {
        if (cause instanceof PayloadTypeException || findCause(rootFailure, BindException.class) != null) {
            return null;
        }
        if (cause instanceof TaskDeclarationException declaration) {
            return new FailureAnalysis(
                    "The @Task declaration of " + declaration.taskClass().getName() + " is invalid: "
                            + declaration.reason(),
                    "Fix the @Task annotation or the handler class "
                            + declaration.taskClass().getName() + " (" + Guarantees.link("S-ID-2") + ").",
                    cause);
        }
        String field = cause.field();
        if (field.startsWith("runlane.")) {
            Origin origin = PropertyOrigins.find(environment, field);
            return new FailureAnalysis(
                    "Invalid Runlane configuration property '" + field + "': " + cause.reason()
                            + (origin != null ? "\n\n    Origin: " + origin : ""),
                    "Update the property '" + field + "' in your application's configuration.",
                    cause);
        }
        return new FailureAnalysis(
                "Invalid Runlane configuration: " + cause.getMessage(),
                "Correct '" + field + "' where your application sets it.",
                cause);
    }
}
