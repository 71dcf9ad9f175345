package io.runlane.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.InvalidKeyException;
import io.runlane.KeyResolverException;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictException;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerResult;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.RefreshCustomer;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The six checks the product documentation asks every deployment to verify, on the documentation's own task
 * ({@code customers.refresh}: idempotency key, 24h retention, singleton key per customer).
 */
@RunlaneDatabaseTest
class DocumentedPolicyChecksIntegrationTests {

    @Pool(size = 8)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    /** A task whose resolver output depends on the payload, to show that bad output writes nothing. */
    @Task(id = "customers.import")
    public static class ImportCustomer implements TaskHandler<ImportCustomer.Payload> {

        public record Payload(String customerId) {}

        @Override
        public String idempotencyKey(Payload payload) {
            if (payload.customerId().equals("explode")) {
                throw new IllegalStateException("resolver failed");
            }
            return "import:" + payload.customerId();
        }

        @Override
        public String singletonKey(Payload payload) {
            return "customer." + payload.customerId();
        }

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @BeforeAll
    static void start(@FreshSchema("documented_checks") String schema) {
        runlane = TestRunlane.start(dataSource, schema, new RefreshCustomer(), new ImportCustomer());
    }

    private static TriggerResult refresh(String customerId) {
        return runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload(customerId));
    }

    @Test
    @DisplayName("1. the same idempotency key returns one run (S-IK-2, S-TR-1)")
    void sameIdempotencyKeyReturnsOneRun() {
        TriggerResult first = refresh("check-1");
        TriggerResult second = refresh("check-1");

        assertThat(first.outcome()).isEqualTo(TriggerOutcome.CREATED);
        assertThat(second.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(second.runId()).isEqualTo(first.runId());
    }

    @Test
    @DisplayName("2. a retained owner remains until the expected TTL or reset (S-IK-3, S-IK-8)")
    void retainedOwnerRemainsUntilTheTtlOrReset() {
        TriggerResult owner = refresh("check-2");
        runlane.finish(owner.runId(), RunStatus.SUCCEEDED);
        runlane.age(owner.runId(), Duration.ofHours(23));
        assertThat(refresh("check-2").runId()).isEqualTo(owner.runId());

        runlane.age(owner.runId(), Duration.ofHours(1));
        TriggerResult afterTtl = refresh("check-2");
        assertThat(afterTtl.created()).isTrue();

        runlane.finish(afterTtl.runId(), RunStatus.SUCCEEDED);
        assertThat(refresh("check-2").runId()).isEqualTo(afterTtl.runId());
        assertThat(runlane.template().idempotencyKeys().reset("customers.refresh", "refresh.check-2"))
                .isTrue();
        assertThat(refresh("check-2").created()).isTrue();
    }

    @Test
    @DisplayName("3. a singleton conflict is visible (S-SK-2)")
    void singletonConflictIsVisible() {
        TriggerResult owner = refresh("check-3");

        assertThatExceptionOfType(SingletonConflictException.class)
                .isThrownBy(() -> runlane.template()
                        .trigger(
                                "customers.refresh",
                                new RefreshCustomer.Payload("check-3"),
                                TriggerOptions.builder()
                                        .idempotencyKey("operator-request-17")
                                        .build()))
                .satisfies(ex -> assertThat(ex.ownerRunId()).isEqualTo(owner.runId()));
    }

    @Test
    @DisplayName("4. singleton ownership is released at terminal state (S-SK-1)")
    void singletonIsReleasedAtTerminalState() {
        TriggerResult owner = refresh("check-4");
        runlane.finish(owner.runId(), RunStatus.SUCCEEDED);

        TriggerResult other = runlane.template()
                .trigger(
                        "customers.refresh",
                        new RefreshCustomer.Payload("check-4"),
                        TriggerOptions.builder()
                                .idempotencyKey("operator-request-18")
                                .build());

        assertThat(other.created()).isTrue();
        assertThat(other.run().singletonKey()).isEqualTo(owner.run().singletonKey());
    }

    @Test
    @DisplayName("5. different keys proceed independently (S-SK-5, S-IK-1)")
    void differentKeysProceedIndependently() {
        TriggerResult first = refresh("check-5a");
        TriggerResult second = refresh("check-5b");

        assertThat(first.created()).isTrue();
        assertThat(second.created()).isTrue();
        assertThat(first.runId()).isNotEqualTo(second.runId());
    }

    @Test
    @DisplayName("6. invalid resolver output creates no partial run (S-ID-1, S-ID-3)")
    void invalidResolverOutputCreatesNoPartialRun() {
        TestRunlane.RowCounts before = runlane.rowCounts();

        assertThatExceptionOfType(InvalidKeyException.class)
                .isThrownBy(() -> runlane.template().trigger("customers.import", new ImportCustomer.Payload("c-6")))
                .withMessageContaining("idempotencyKey");
        assertThatExceptionOfType(KeyResolverException.class)
                .isThrownBy(() -> runlane.template().trigger("customers.import", new ImportCustomer.Payload("explode")))
                .withCauseInstanceOf(IllegalStateException.class);

        assertThat(runlane.rowCounts()).isEqualTo(before);
    }
}
