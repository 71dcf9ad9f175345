package io.runlane.internal.jdbc;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionCallback;
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

    public ReadCommittedTransactions(PlatformTransactionManager transactionManager, JdbcClient jdbc) {
        super(transactionManager);
        this.jdbc = jdbc;
        this.readCommitted = new TransactionTemplate(transactionManager);
        this.readCommitted.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
    }

    /** These transactions on the template's manager; the template itself when it is already one. */
    static ReadCommittedTransactions of(TransactionTemplate transactions, JdbcClient jdbc) {
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

    @Override
    public <T> @Nullable T execute(TransactionCallback<T> action) throws TransactionException {
        return isSessionDefault() ? super.execute(action) : readCommitted.execute(action);
    }
}
