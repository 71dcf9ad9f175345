package io.runlane.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;

/** Which failures of a group statement leave the group's outcome unknown (S-TR-13). */
class GroupCommitTests {

    @Test
    @DisplayName("S-TR-13: a broken connection leaves the outcome unknown; the group fails with it")
    void brokenConnectionIsUnknown() {
        assertThat(GroupCommit.outcomeUnknown(new DataAccessResourceFailureException(
                        "gone", new SQLException("An I/O error occurred", "08006"))))
                .isTrue();
        assertThat(GroupCommit.outcomeUnknown(new IllegalStateException("no SQL state at all")))
                .isTrue();
    }

    @Test
    @DisplayName("S-TR-13: a lock timeout or a constraint failed before the commit; each run is admitted alone")
    void databaseRefusalsAreKnown() {
        assertThat(GroupCommit.outcomeUnknown(
                        new CannotAcquireLockException("lock", new SQLException("lock timeout", "55P03"))))
                .isFalse();
        assertThat(GroupCommit.outcomeUnknown(new DuplicateKeyException("dup", new SQLException("unique", "23505"))))
                .isFalse();
    }
}
