package io.runlane.autoconfigure.diagnostics;

import io.runlane.internal.schema.UnsupportedDatabaseException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a Runlane {@code DataSource} that is not PostgreSQL 13 or later. */
class UnsupportedDatabaseFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedDatabaseException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedDatabaseException cause) {
        return new FailureAnalysis(
                cause.getMessage() + ".",
                "Give Runlane a PostgreSQL DataSource: mark it @RunlaneDataSource when the application has several,"
                        + " or set runlane.enabled=false where Runlane is not wanted (in tests on another database,"
                        + " say).",
                cause);
    }
}
