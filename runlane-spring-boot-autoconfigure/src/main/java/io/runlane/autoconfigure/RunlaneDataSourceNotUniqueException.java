package io.runlane.autoconfigure;

import io.runlane.RunlaneException;
import java.util.List;

/** The application has several {@code DataSource}s, none marked {@link RunlaneDataSource @RunlaneDataSource}. */
public final class RunlaneDataSourceNotUniqueException extends RunlaneException {

    private final List<String> beanNames;

    RunlaneDataSourceNotUniqueException(List<String> beanNames) {
        super(
                "datasource_not_unique",
                "Runlane needs one DataSource but found " + beanNames.size() + " (" + String.join(", ", beanNames)
                        + "), none marked @RunlaneDataSource and none @Primary");
        this.beanNames = List.copyOf(beanNames);
    }

    /** The names of the candidate beans. */
    public List<String> beanNames() {
        return beanNames;
    }
}
