package io.runlane.internal.jdbc;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The transactions the engine starts itself run at {@code READ COMMITTED}, whatever the database's or the role's
 * default isolation is (S-TR-11). The claim and admission statements rely on it: each statement must see rows
 * committed while it waited for a lock. Under {@code REPEATABLE READ} a limited claim's snapshot would predate the
 * queue's advisory lock, so a waiter would count the running runs as they were before the previous claimer
 * committed and claim past the limit (S-QC-2); and a key claim that waited for a concurrent owner would fail with a
 * serialization error instead of returning that owner. A transaction joined from the caller keeps its own isolation
 * (S-TR-9).
 *
 * <p>Statements that run alone in auto-commit get the session's default isolation; {@link #isSessionDefault()}
 * tells whether they need an explicit transaction.
 */
final class ReadCommitted {

    private static final String SESSION_DEFAULT = "SELECT current_setting('default_transaction_isolation')";

    private final JdbcClient jdbc;

    private volatile @Nullable Boolean sessionDefault;

    ReadCommitted(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Whether the data source's sessions start transactions at {@code READ COMMITTED}. Asked once, on first use: it is
     * a setting of the server, database, role or connection URL, the same for every connection of one pool.
     */
    boolean isSessionDefault() {
        Boolean known = sessionDefault;
        if (known == null) {
            known = "read committed"
                    .equals(jdbc.sql(SESSION_DEFAULT).query(String.class).single());
            sessionDefault = known;
        }
        return known;
    }

    /** A copy of the template that starts its transactions at {@code READ COMMITTED}. */
    static TransactionTemplate of(TransactionTemplate transactions) {
        TransactionTemplate readCommitted = new TransactionTemplate(transactions.getTransactionManager(), transactions);
        readCommitted.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        return readCommitted;
    }
}
