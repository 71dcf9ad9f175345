package io.runlane.testsupport;

import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Stops Runlane's statements half-way so that a test can look at what other sessions see meanwhile: a row trigger on
 * one of Runlane's tables waits for an advisory lock that the gate holds until {@link #open()}. The statement that
 * fires it keeps every lock it has taken so far, and so does its transaction.
 */
public final class DatabaseGate implements AutoCloseable {

    private static final long KEY = 770_011;

    private final HikariDataSource keeper = TestDatabase.newDataSource(1);

    private final JdbcTemplate admin;

    private final String schema;

    private final String table;

    private boolean closed;

    /**
     * Closes the gate on {@code timing} ({@code BEFORE INSERT}, {@code AFTER INSERT}, {@code BEFORE UPDATE}, ...) of
     * {@code schema.table}; {@code admin} must not be the pool of the statements being stopped.
     */
    public DatabaseGate(JdbcTemplate admin, String schema, String table, String timing) {
        this.admin = admin;
        this.schema = schema;
        this.table = table;
        admin.execute("CREATE OR REPLACE FUNCTION " + schema + ".test_gate() RETURNS trigger LANGUAGE plpgsql AS $$"
                + " BEGIN PERFORM pg_advisory_xact_lock_shared(" + KEY + "); RETURN coalesce(NEW, OLD); END $$");
        admin.execute("CREATE TRIGGER test_gate " + timing + " ON " + schema + "." + table
                + " FOR EACH ROW EXECUTE FUNCTION " + schema + ".test_gate()");
        // a session-level lock: the keeper's pooled session holds it until open() closes the pool
        new JdbcTemplate(keeper).execute("SELECT pg_advisory_lock(" + KEY + ")");
    }

    /** The process id of the one backend waiting at the gate, once there is one. */
    public int awaitWaiter() {
        return await().atMost(Duration.ofSeconds(30))
                .until(() -> waiting("locktype = 'advisory' AND objid = " + KEY), pid -> pid != null);
    }

    /** The process id of one backend waiting for a lock of this type other than the gate's, once there is one. */
    public int awaitOtherWaiter(String lockType) {
        return await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> waiting("locktype = '" + lockType + "' AND NOT (locktype = 'advisory' AND objid = " + KEY
                                + ")"),
                        pid -> pid != null);
    }

    private Integer waiting(String condition) {
        return admin.query(
                "SELECT pid FROM pg_locks WHERE NOT granted AND " + condition + " LIMIT 1",
                rs -> rs.next() ? rs.getInt(1) : null);
    }

    /** Lets the stopped statements go on. */
    public void open() {
        if (!closed) {
            closed = true;
            keeper.close();
        }
    }

    @Override
    public void close() {
        open();
        admin.execute("DROP TRIGGER IF EXISTS test_gate ON " + schema + "." + table);
    }
}
