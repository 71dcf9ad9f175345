package io.runlane.autoconfigure.diagnostics;

import io.runlane.internal.schema.UnsupportedDatabaseException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a Runlane {@code DataSource} that is not PostgreSQL 13 or later, or refuses a capability it needs. */
class UnsupportedDatabaseFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedDatabaseException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedDatabaseException cause) {
        if (cause.capability() != null) {
            return new FailureAnalysis(
                    cause.getMessage(),
                    "Run Runlane on PostgreSQL itself, or on a compatible database that supports " + cause.capability()
                            + "; when a role lacks the right to a function the probe names (pg_notify, say), grant it"
                            + " to the database user.",
                    cause);
        }
        return new FailureAnalysis(
                cause.getMessage() + ".",
                "Give Runlane a PostgreSQL DataSource: mark it @RunlaneDataSource when the application has several,"
                        + " or set runlane.enabled=false where Runlane is not wanted (in tests on another database,"
                        + " say).",
                cause);
    }
}
