package io.runlane.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.faults.Evidence.EventRow;
import io.runlane.faults.Evidence.RunRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A lease-loss warning counts as unfounded only for a run of the scenario whose attempt never lost its lease. */
class LeaseLossWarningsTests {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path directory;

    @Test
    void warningForAnAttemptWithoutALeaseExpiryIsUnfounded() throws IOException {
        UUID expired = UUID.randomUUID();
        UUID completed = UUID.randomUUID();
        UUID otherScenario = UUID.randomUUID();
        Files.write(
                directory.resolve("node-1.log"),
                List.of(
                        "INFO ==== scenario before seed 1 ====",
                        warning(otherScenario),
                        "INFO ==== scenario unit seed 1 ====",
                        warning(expired),
                        warning(completed),
                        "INFO ==== scenario after seed 1 ====",
                        warning(completed)));
        Evidence evidence = new Evidence(
                List.of(run(expired), run(completed)),
                List.of(
                        new EventRow(expired, 2, "CLAIMED", "RUNNING", T0, "w1", "attempt 1"),
                        new EventRow(expired, 3, "LEASE_EXPIRED", "RETRYING", T0, "maintenance", "attempt 1 lost")),
                List.of());

        List<String> unfounded = LeaseLossWarnings.unfounded(directory, "unit", evidence);

        assertThat(unfounded).containsExactly("node-1.log: run " + completed + " attempt 1");
    }

    private static String warning(UUID runId) {
        return "WARN Heartbeats : Run " + runId + " attempt 1 lost its lease; its outcome will be refused";
    }

    private static RunRow run(UUID id) {
        return new RunRow(id, "unit.k", "SUCCEEDED", 1, T0, T0);
    }
}
