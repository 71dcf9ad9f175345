package io.runlane.internal.kernel;

import java.lang.reflect.UndeclaredThrowableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.CallbackPreferringPlatformTransactionManager;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The engine's own transactions, which run at {@code READ COMMITTED} whatever the database's or the role's default
 * isolation is (S-TR-11). Claims and admissions rely on it: each statement must see the rows committed while it
 * waited for a lock. Under {@code REPEATABLE READ} a limited claim's snapshot would predate the queue's advisory
 * lock, so a waiter would count the running runs as they were before the previous claimer committed and claim past
 * the limit (S-QC-2); and a key claim that waited for a concurrent owner would fail with a serialization error
 * instead of returning that owner (S-IK-7). A transaction joined from the caller keeps its own isolation (S-TR-9).
 *
 * <p>The isolation is set only when the sessions' default is not already {@code READ COMMITTED}: setting it costs
 * two round trips per transaction. The default is asked once, on first use; it is a setting of the server, database,
 * role or connection URL, the same for every connection of one pool. Statements that run alone in auto-commit get the
 * default too, so {@link #isSessionDefault()} also tells whether they need a transaction of their own.
 */
public final class ReadCommittedTransactions extends TransactionTemplate {

    private static final String SESSION_DEFAULT = "SELECT current_setting('default_transaction_isolation')";

    private final JdbcClient jdbc;

    private final TransactionTemplate readCommitted;

    private volatile @Nullable Boolean sessionDefault;

    private final @Nullable DataSource boundedDataSource;

    private final int networkTimeoutMillis;

    public ReadCommittedTransactions(PlatformTransactionManager transactionManager, JdbcClient jdbc) {
        this(transactionManager, jdbc, null, 0);
    }

    private ReadCommittedTransactions(
            PlatformTransactionManager transactionManager,
            JdbcClient jdbc,
            @Nullable DataSource boundedDataSource,
            int networkTimeoutMillis) {
        super(transactionManager);
        this.jdbc = jdbc;
        this.readCommitted = new TransactionTemplate(transactionManager);
        this.readCommitted.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        this.boundedDataSource = boundedDataSource;
        this.networkTimeoutMillis = networkTimeoutMillis;
    }

    /**
     * Transactions for the engine's own loops (S-MO-11): a transaction they start sets {@code networkTimeout} on its
     * connection of {@code dataSource} and puts the previous one back when it completes, so that a primary that stopped
     * answering cannot hold a claim or a schedule's firing. A caller's transaction they join keeps its settings.
     */
    public static ReadCommittedTransactions bounded(
            PlatformTransactionManager transactionManager,
            JdbcClient jdbc,
            DataSource dataSource,
            Duration networkTimeout) {
        return new ReadCommittedTransactions(transactionManager, jdbc, dataSource, (int)
                Math.max(1, Math.min(Integer.MAX_VALUE, networkTimeout.toMillis())));
    }

    /** These transactions on the template's manager; the template itself when it is already one. */
    public static ReadCommittedTransactions of(TransactionTemplate transactions, JdbcClient jdbc) {
        if (transactions instanceof ReadCommittedTransactions readCommitted) {
            return readCommitted;
        }
        PlatformTransactionManager manager = transactions.getTransactionManager();
        if (manager == null) {
            throw new IllegalArgumentException("The transaction template has no transaction manager");
        }
        return new ReadCommittedTransactions(manager, jdbc);
    }

    /** Whether the data source's sessions start transactions at {@code READ COMMITTED}. */
    public boolean isSessionDefault() {
        Boolean known = sessionDefault;
        if (known == null) {
            known = "read committed"
                    .equals(jdbc.sql(SESSION_DEFAULT).query(String.class).single());
            sessionDefault = known;
        }
        return known;
    }

    /**
     * Runs {@code action} in a transaction (the caller's one when active). When the action fails and the rollback fails
     * too, as both do when the connection is cut, the action's failure is thrown with the rollback's as suppressed, and
     * nothing is logged here: {@link TransactionTemplate} would log the action's failure at {@code ERROR} with its stack
     * trace and throw the rollback's, which only says the connection is closed. The loop that called reports the
     * outage once (S-MO-4).
     */
    @Override
    public <T> @Nullable T execute(TransactionCallback<T> action) throws TransactionException {
        TransactionTemplate definition = isSessionDefault() ? this : readCommitted;
        PlatformTransactionManager manager = definition.getTransactionManager();
        if (manager == null || manager instanceof CallbackPreferringPlatformTransactionManager) {
            return definition == this ? super.execute(action) : readCommitted.execute(action);
        }
        TransactionStatus status = manager.getTransaction(definition);
        T result;
        try {
            if (status.isNewTransaction()) {
                bound();
            }
            result = action.doInTransaction(status);
        } catch (RuntimeException | Error ex) {
            rollBack(manager, status, ex);
            throw ex;
        } catch (Throwable ex) {
            rollBack(manager, status, ex);
            throw new UndeclaredThrowableException(ex, "The transaction's work threw an undeclared checked exception");
        }
        manager.commit(status);
        return result;
    }

    /** Sets the network timeout on the new transaction's connection until the transaction completes. */
    private void bound() {
        DataSource dataSource = boundedDataSource;
        if (dataSource == null || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            int previous = connection.getNetworkTimeout();
            connection.setNetworkTimeout(AutoCommitDataSource.DIRECT, networkTimeoutMillis);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int completion) {
                    try {
                        if (!connection.isClosed()) {
                            connection.setNetworkTimeout(AutoCommitDataSource.DIRECT, previous);
                        }
                    } catch (SQLException ignored) {
                        // a connection that cannot take its timeout back is broken; the pool discards it
                    }
                }
            });
        } catch (SQLException ex) {
            throw new CannotGetJdbcConnectionException("Could not bound the transaction's connection", ex);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    private static void rollBack(PlatformTransactionManager manager, TransactionStatus status, Throwable failure) {
        try {
            manager.rollback(status);
        } catch (RuntimeException | Error rollbackFailure) {
            failure.addSuppressed(rollbackFailure);
        }
    }
}
