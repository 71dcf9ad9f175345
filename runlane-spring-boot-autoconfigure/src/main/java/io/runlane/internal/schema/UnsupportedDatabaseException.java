package io.runlane.internal.schema;

import io.runlane.RunlaneException;
import org.jspecify.annotations.Nullable;

/** Runlane's {@code DataSource} is not PostgreSQL 13 or later. */
public final class UnsupportedDatabaseException extends RunlaneException {

    private final String found;

    private final @Nullable String capability;

    public UnsupportedDatabaseException(String found) {
        super(
                "database_unsupported",
                "Runlane requires PostgreSQL " + PostgresRequirement.MINIMUM_MAJOR_VERSION + " or later; found "
                        + found);
        this.found = found;
        this.capability = null;
    }

    /** The database reports itself as PostgreSQL but refused a capability Runlane relies on. */
    public UnsupportedDatabaseException(String found, String capability, Throwable cause) {
        super(
                "database_unsupported",
                "Runlane requires PostgreSQL's " + capability + ", which " + found + " refused: " + cause.getMessage(),
                cause);
        this.found = found;
        this.capability = capability;
    }

    /** The capability the database refused, or {@code null} when it is not PostgreSQL 13 or later at all. */
    public @Nullable String capability() {
        return capability;
    }

    /** The product and version found, such as {@code H2 2.4.240}. */
    public String found() {
        return found;
    }
}
