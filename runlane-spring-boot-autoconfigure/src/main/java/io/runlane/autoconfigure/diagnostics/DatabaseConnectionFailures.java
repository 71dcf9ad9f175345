package io.runlane.autoconfigure.diagnostics;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

/** Tells a database that cannot be reached apart from one that refuses a statement. */
final class DatabaseConnectionFailures {

    private DatabaseConnectionFailures() {}

    /** Whether the chain holds a connection failure: SQL state class 08, a pool time-out, a refused socket. */
    static boolean isConnectionFailure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLTransientConnectionException
                    || cause instanceof SQLNonTransientConnectionException
                    || cause instanceof ConnectException
                    || cause instanceof UnknownHostException) {
                return true;
            }
            if (cause instanceof SQLException sql
                    && sql.getSQLState() != null
                    && sql.getSQLState().startsWith("08")) {
                return true;
            }
        }
        return false;
    }

    /** The innermost message, which names the host or the refusal. */
    static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.getClass().getName();
    }
}
