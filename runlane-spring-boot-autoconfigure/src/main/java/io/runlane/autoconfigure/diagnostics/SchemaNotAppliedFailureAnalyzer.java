package io.runlane.autoconfigure.diagnostics;

import io.runlane.internal.schema.SchemaNotAppliedException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports the changelog files missing from a schema the application manages itself. */
class SchemaNotAppliedFailureAnalyzer extends AbstractFailureAnalyzer<SchemaNotAppliedException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SchemaNotAppliedException cause) {
        StringBuilder description = new StringBuilder("runlane.schema.initialize is false, and Runlane's schema '")
                .append(cause.schema())
                .append("' lacks the changesets of these files of db/runlane/changes/:\n");
        cause.missingFiles().forEach(file -> description.append("\n    - ").append(file));
        return new FailureAnalysis(
                description.toString(),
                "Apply the missing files before Runlane starts: include db/runlane/changelog-master.xml in your"
                        + " Liquibase changelog, or copy each missing file from the Runlane jar into your Flyway"
                        + " migrations (see the README's 'Schema' section). Or remove runlane.schema.initialize=false"
                        + " so that Runlane applies them itself.",
                cause);
    }
}
