package io.runlane.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.RunStatus;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerResult;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.Concurrently.Outcome;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * While most triggers of an instance return an existing run, a keyed trigger reads its key's owner before it tries the
 * admission statement (issue 16). Every answer stays what the statement alone would give: these tests first make the
 * instance see duplicates only, then check each ownership rule on that path.
 */
@RunlaneDatabaseTest
class DuplicateHeavyTriggerIntegrationTests {

    @Pool(size = 12)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    private String prefix;

    @BeforeEach
    void startDuplicateHeavy(@FreshSchema("dupheavy") String schema) {
        runlane = TestRunlane.start(dataSource, schema, TestTasks.all());
        prefix = "dh-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        TriggerResult first = confirm("warm");
        for (int i = 0; i < 200; i++) {
            assertThat(confirm("warm").runId()).isEqualTo(first.runId());
        }
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    private TriggerResult confirm(String order) {
        return runlane.template().trigger(ConfirmOrder.class, new ConfirmOrder.Payload(prefix + order, 1));
    }

    @Test
    @DisplayName("S-TR-1, S-IK-2: a new key still creates its run, and its duplicates return it")
    void newKeysStillCreate() {
        TriggerResult created = confirm("new");
        TriggerResult duplicate = confirm("new");

        assertThat(created.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(duplicate.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(duplicate.runId()).isEqualTo(created.runId());
        assertThat(duplicate.run().status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    @DisplayName("S-IK-3, S-IK-4, S-IK-10: a retained owner is returned; a failed or expired one is not")
    void retentionRulesHold() {
        TriggerResult succeeded = confirm("succeeded");
        runlane.finish(succeeded.runId(), RunStatus.SUCCEEDED);
        TriggerResult failed = confirm("failed");
        runlane.finish(failed.runId(), RunStatus.FAILED);
        TriggerResult expired = confirm("expired");
        runlane.finish(expired.runId(), RunStatus.SUCCEEDED);
        runlane.age(expired.runId(), Duration.ofDays(31));

        TriggerResult retained = confirm("succeeded");
        TriggerResult afterFailure = confirm("failed");
        TriggerResult afterExpiry = confirm("expired");

        assertThat(retained.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(retained.runId()).isEqualTo(succeeded.runId());
        assertThat(retained.run().status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(afterFailure.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(afterFailure.runId()).isNotEqualTo(failed.runId());
        assertThat(afterExpiry.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(afterExpiry.runId()).isNotEqualTo(expired.runId());
    }

    @Test
    @DisplayName("S-IK-7: 12 threads racing on fresh keys and their duplicates get one run per key")
    void racesOnFreshKeysCreateOneRunEach() {
        List<Outcome<List<TriggerResult>>> outcomes = Concurrently.run(
                12,
                caller -> () -> java.util.stream.IntStream.range(0, 40)
                        .mapToObj(i -> confirm("race-" + (i % 10)))
                        .toList());

        assertThat(outcomes).noneMatch(Outcome::failed);
        List<TriggerResult> results =
                outcomes.stream().flatMap(outcome -> outcome.value().stream()).toList();
        assertThat(results).filteredOn(TriggerResult::created).hasSize(10);
        assertThat(results.stream().map(TriggerResult::runId).distinct()).hasSize(10);
        assertThat(runlane.jdbc()
                        .queryForObject(
                                "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE idempotency_key LIKE ?",
                                Long.class,
                                "order." + prefix + "race-%"))
                .isEqualTo(10);
    }
}
