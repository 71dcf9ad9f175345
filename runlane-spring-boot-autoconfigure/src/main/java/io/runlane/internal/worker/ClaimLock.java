package io.runlane.internal.worker;

import io.runlane.internal.kernel.PositionalStatement;
import io.runlane.internal.kernel.StatementParameters;
import java.sql.Types;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The advisory lock a claim's transaction takes first ({@link RunClaims#LOCK_FOR_CLAIM}: a limited queue's, S-QC-2, or
 * a throttled task's, S-TH-3), for one lock key, with its text and value bound once for every poll.
 */
final class ClaimLock {

    private static final StatementParameters PARAMETERS =
            StatementParameters.builder().add("lockKey", Types.VARCHAR).build();

    private static final PositionalStatement STATEMENT = PositionalStatement.of(RunClaims.LOCK_FOR_CLAIM, PARAMETERS);

    private final JdbcClient jdbc;

    private final Object[] arguments;

    ClaimLock(JdbcClient jdbc, String lockKey) {
        this.jdbc = jdbc;
        this.arguments = STATEMENT.arguments(PARAMETERS.values().set("lockKey", lockKey));
    }

    /** Takes the lock for the transaction the caller holds, waiting for its holder if any. */
    void take() {
        jdbc.sql(STATEMENT.sql()).params(arguments).query((rs, rowNum) -> 1).list();
    }
}
