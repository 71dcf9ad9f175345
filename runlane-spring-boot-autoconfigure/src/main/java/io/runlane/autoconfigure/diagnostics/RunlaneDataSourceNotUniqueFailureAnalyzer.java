package io.runlane.autoconfigure.diagnostics;

import io.runlane.autoconfigure.RunlaneDataSourceNotUniqueException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports several {@code DataSource}s with none chosen for Runlane, and names the qualifier that chooses one. */
class RunlaneDataSourceNotUniqueFailureAnalyzer extends AbstractFailureAnalyzer<RunlaneDataSourceNotUniqueException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RunlaneDataSourceNotUniqueException cause) {
        return new FailureAnalysis(
                "Runlane needs one DataSource, but the application has "
                        + cause.beanNames().size() + ": " + String.join(", ", cause.beanNames())
                        + ". None is marked @RunlaneDataSource or @Primary.",
                "Mark the PostgreSQL DataSource Runlane should use with @RunlaneDataSource"
                        + " (io.runlane.autoconfigure.RunlaneDataSource), or mark one DataSource @Primary, or set"
                        + " runlane.enabled=false.",
                cause);
    }
}
