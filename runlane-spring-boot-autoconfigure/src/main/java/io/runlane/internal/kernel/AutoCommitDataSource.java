package io.runlane.internal.kernel;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.springframework.core.InfrastructureProxy;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The application's {@link DataSource} as the engine uses it: every connection it hands out is in auto-commit mode,
 * whatever the pool's default (S-TR-14). The engine sends most of its statements outside any transaction (an
 * admission, a claim, a heartbeat, a completion, a {@code LISTEN}) and relies on each committing on its own; on a pool
 * configured with auto-commit off ({@code spring.datasource.hikari.auto-commit=false}, a common JPA tuning) they would
 * otherwise be rolled back when the connection goes back to the pool.
 *
 * <p>It is an {@link InfrastructureProxy} of the application's {@code DataSource}, so Spring's transaction
 * synchronisation treats the two as one resource: inside a caller's transaction the engine's statements still use the
 * transaction's connection (S-TR-3), which keeps the caller's auto-commit setting. A connection that came with
 * auto-commit off is switched on (no round trip: the driver only flips a flag while no transaction is open) and
 * switched back when closed, so the pool gets it back as it lent it; one that came in auto-commit is handed out as it
 * is.
 *
 * <p>The engine's own loops (claims, heartbeats, completions, maintenance, schedules, listeners) take their
 * connections from a {@link #bounded bounded} instance, which also sets a network timeout on each connection while
 * the engine holds it (S-MO-11): a read that gets no byte for that long fails and the connection is abandoned, so a
 * primary that stopped answering cannot hold a loop whatever the JDBC URL's {@code socketTimeout} says. The previous
 * timeout is restored on close.
 */
public final class AutoCommitDataSource extends DelegatingDataSource implements InfrastructureProxy {

    /** pgjdbc applies a network timeout to its socket at once; the executor is only required to be there. */
    public static final Executor DIRECT = Runnable::run;

    private final int networkTimeoutMillis;

    private AutoCommitDataSource(DataSource target, int networkTimeoutMillis) {
        super(target);
        this.networkTimeoutMillis = networkTimeoutMillis;
    }

    /** The engine's view of {@code dataSource}, without a network timeout of its own. */
    public static DataSource of(DataSource dataSource) {
        return new AutoCommitDataSource(unwrapped(dataSource), 0);
    }

    /** The engine loops' view of {@code dataSource}: auto-commit, and {@code networkTimeout} on every connection. */
    public static DataSource bounded(DataSource dataSource, Duration networkTimeout) {
        return new AutoCommitDataSource(
                unwrapped(dataSource), (int) Math.max(1, Math.min(Integer.MAX_VALUE, networkTimeout.toMillis())));
    }

    private static DataSource unwrapped(DataSource dataSource) {
        return dataSource instanceof AutoCommitDataSource engine ? engine.obtainTargetDataSource() : dataSource;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return inAutoCommit(obtainTargetDataSource().getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return inAutoCommit(obtainTargetDataSource().getConnection(username, password));
    }

    /** The resource Spring's transaction synchronisation binds connections to: the application's data source. */
    @Override
    public Object getWrappedObject() {
        DataSource target = obtainTargetDataSource();
        return target instanceof InfrastructureProxy proxy ? proxy.getWrappedObject() : target;
    }

    private Connection inAutoCommit(Connection connection) throws SQLException {
        boolean manualCommit;
        int previousTimeout = -1;
        try {
            manualCommit = !connection.getAutoCommit();
            if (!manualCommit && networkTimeoutMillis == 0) {
                return connection;
            }
            if (manualCommit) {
                connection.setAutoCommit(true);
            }
            if (networkTimeoutMillis > 0) {
                previousTimeout = connection.getNetworkTimeout();
                connection.setNetworkTimeout(DIRECT, networkTimeoutMillis);
            }
        } catch (SQLException | RuntimeException ex) {
            try {
                connection.close();
            } catch (SQLException closing) {
                ex.addSuppressed(closing);
            }
            throw ex;
        }
        return (Connection) Proxy.newProxyInstance(
                AutoCommitDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                new RestoringSettings(connection, manualCommit, previousTimeout));
    }

    /**
     * Puts auto-commit and the network timeout back as the pool lent them before the connection goes back to it.
     *
     * @param previousTimeout the network timeout to restore, or {@code -1} to leave it
     */
    private record RestoringSettings(Connection connection, boolean manualCommit, int previousTimeout)
            implements InvocationHandler {

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "close" -> {
                    try {
                        restore();
                    } finally {
                        connection.close();
                    }
                    return null;
                }
                case "equals" -> {
                    return proxy == args[0];
                }
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                case "unwrap" -> {
                    if (((Class<?>) args[0]).isInstance(proxy)) {
                        return proxy;
                    }
                }
                case "isWrapperFor" -> {
                    if (((Class<?>) args[0]).isInstance(proxy)) {
                        return true;
                    }
                }
                default -> {}
            }
            try {
                return method.invoke(connection, args);
            } catch (InvocationTargetException ex) {
                throw ex.getTargetException();
            }
        }

        private void restore() throws SQLException {
            if (connection.isClosed()) {
                return;
            }
            if (manualCommit) {
                connection.setAutoCommit(false);
            }
            if (previousTimeout >= 0) {
                connection.setNetworkTimeout(DIRECT, previousTimeout);
            }
        }
    }
}
