package io.runlane.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
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
 */
public final class AutoCommitDataSource extends DelegatingDataSource implements InfrastructureProxy {

    private AutoCommitDataSource(DataSource target) {
        super(target);
    }

    /** The engine's view of {@code dataSource}; {@code dataSource} itself when it already is one. */
    public static DataSource of(DataSource dataSource) {
        return dataSource instanceof AutoCommitDataSource ? dataSource : new AutoCommitDataSource(dataSource);
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

    private static Connection inAutoCommit(Connection connection) throws SQLException {
        try {
            if (connection.getAutoCommit()) {
                return connection;
            }
            connection.setAutoCommit(true);
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
                new RestoringManualCommit(connection));
    }

    /** Switches auto-commit back off before the connection goes back to its pool. */
    private record RestoringManualCommit(Connection connection) implements InvocationHandler {

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "close" -> {
                    try {
                        if (!connection.isClosed()) {
                            connection.setAutoCommit(false);
                        }
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
    }
}
