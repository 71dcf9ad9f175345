package io.runlane.internal.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DatabaseOutageTests {

    private final Log logger = LogFactory.getLog(DatabaseOutageTests.class);

    @Test
    @DisplayName("Issue 15.6: failed attempts back off from the loop's interval, doubling up to 30 s, and start over")
    void backsOffDoublingUpToTheCapAndStartsOverAfterASuccess() {
        DatabaseOutage outage = new DatabaseOutage(logger, "Claiming runs", Duration.ofSeconds(1));
        SQLException down = new SQLException("Connection refused", "08001");

        List<Duration> pauses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            pauses.add(outage.failed(down));
        }
        assertThat(pauses).extracting(Duration::toSeconds).containsExactly(1L, 2L, 4L, 8L, 16L, 30L, 30L);
        assertThat(outage.failuresInARow()).isEqualTo(7);

        outage.succeeded();

        assertThat(outage.failuresInARow()).isZero();
        assertThat(outage.failed(down)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    @DisplayName("Issue 15.6: a missing table is described as a schema that is not applied")
    void missingTableIsDescribedAsASchemaNotApplied() {
        SQLException missing = new SQLException("ERROR: relation \"runlane.runs\" does not exist", "42P01");

        assertThat(DatabaseOutage.describe(new RuntimeException("bad SQL grammar", missing)))
                .isEqualTo("ERROR: relation \"runlane.runs\" does not exist (Runlane's schema is not applied: see"
                        + " runlane.schema.initialize)");
    }
}
