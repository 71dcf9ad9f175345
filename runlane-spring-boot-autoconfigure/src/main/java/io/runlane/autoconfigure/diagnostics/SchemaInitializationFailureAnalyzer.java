package io.runlane.autoconfigure.diagnostics;

import io.runlane.internal.schema.SchemaInitializationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports that Runlane could not reach its database at start-up, or could not apply or check its schema. */
class SchemaInitializationFailureAnalyzer extends AbstractFailureAnalyzer<SchemaInitializationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SchemaInitializationException cause) {
        String reason = DatabaseConnectionFailures.rootMessage(cause);
        if (DatabaseConnectionFailures.isConnectionFailure(cause)) {
            return new FailureAnalysis(
                    "Runlane could not connect to its database to prepare its schema '" + cause.schema() + "': "
                            + reason,
                    "Check that PostgreSQL is running and reachable, and that the DataSource's URL, user name and"
                            + " password (spring.datasource.*) are right.",
                    cause);
        }
        return new FailureAnalysis(
                "Runlane could not apply or check its schema '" + cause.schema() + "': " + reason,
                "Grant the database user the right to create the schema '" + cause.schema()
                        + "' and its tables, or set runlane.schema.initialize=false and apply"
                        + " db/runlane/changelog-master.xml with your own Liquibase or Flyway set-up.",
                cause);
    }
}
