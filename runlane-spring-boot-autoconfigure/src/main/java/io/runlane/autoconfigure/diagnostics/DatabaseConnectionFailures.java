package io.runlane.autoconfigure.diagnostics;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import org.jspecify.annotations.Nullable;

/**
 * Tells the causes of a failed start-up connection or schema statement apart, so that each gets its own fix: a host
 * that does not resolve, a refused or silent port, an unknown database, refused credentials, a full server, a user
 * without the right to create the schema, a read-only connection.
 */
final class DatabaseConnectionFailures {

    /** What went wrong, most specific first. */
    enum Cause {
        UNKNOWN_HOST,
        CONNECTION_REFUSED,
        UNKNOWN_DATABASE,
        AUTHENTICATION_FAILED,
        TOO_MANY_CONNECTIONS,
        TIMED_OUT,
        OTHER_CONNECTION_FAILURE,
        PERMISSION_DENIED,
        READ_ONLY,
        OTHER;

        /** Whether no connection was had at all, as opposed to a statement the database refused. */
        boolean isConnectionFailure() {
            return this != PERMISSION_DENIED && this != READ_ONLY && this != OTHER;
        }
    }

    private DatabaseConnectionFailures() {}

    /** The most specific cause found in the chain: exception types first, then PostgreSQL's SQL states. */
    static Cause classify(Throwable failure) {
        if (find(failure, UnknownHostException.class) != null) {
            return Cause.UNKNOWN_HOST;
        }
        if (find(failure, ConnectException.class) != null) {
            return Cause.CONNECTION_REFUSED;
        }
        for (Throwable cause = failure; cause != null; cause = next(cause)) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                switch (sql.getSQLState()) {
                    case "3D000":
                        return Cause.UNKNOWN_DATABASE;
                    case "28P01", "28000":
                        return Cause.AUTHENTICATION_FAILED;
                    case "53300":
                        return Cause.TOO_MANY_CONNECTIONS;
                    case "42501":
                        return Cause.PERMISSION_DENIED;
                    case "25006":
                        return Cause.READ_ONLY;
                    default:
                        break;
                }
            }
        }
        if (find(failure, SocketTimeoutException.class) != null
                || find(failure, SQLTransientConnectionException.class) != null) {
            return Cause.TIMED_OUT;
        }
        for (Throwable cause = failure; cause != null; cause = next(cause)) {
            if (cause instanceof SQLNonTransientConnectionException
                    || (cause instanceof SQLException sql
                            && sql.getSQLState() != null
                            && sql.getSQLState().startsWith("08"))) {
                return Cause.OTHER_CONNECTION_FAILURE;
            }
        }
        return Cause.OTHER;
    }

    /** The innermost message, which names the host or the refusal. */
    static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (next(root) != null) {
            root = next(root);
        }
        return root.getMessage() != null ? root.getMessage() : root.getClass().getName();
    }

    /** The message of the first exception of this type in the chain. */
    static @Nullable String messageOf(Throwable failure, Class<? extends Throwable> type) {
        Throwable found = find(failure, type);
        return found != null ? found.getMessage() : null;
    }

    private static @Nullable Throwable find(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable cause = failure; cause != null; cause = next(cause)) {
            if (type.isInstance(cause)) {
                return cause;
            }
        }
        return null;
    }

    private static @Nullable Throwable next(Throwable cause) {
        Throwable next = cause.getCause();
        return next == cause ? null : next;
    }
}
