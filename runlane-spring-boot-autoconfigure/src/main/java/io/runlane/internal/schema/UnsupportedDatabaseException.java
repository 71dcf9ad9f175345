package io.runlane.internal.schema;

import io.runlane.RunlaneException;

/** Runlane's {@code DataSource} is not PostgreSQL 13 or later. */
public final class UnsupportedDatabaseException extends RunlaneException {

    private final String found;

    public UnsupportedDatabaseException(String found) {
        super(
                "database_unsupported",
                "Runlane requires PostgreSQL " + PostgresRequirement.MINIMUM_MAJOR_VERSION + " or later; found "
                        + found);
        this.found = found;
    }

    /** The product and version found, such as {@code H2 2.4.240}. */
    public String found() {
        return found;
    }
}
