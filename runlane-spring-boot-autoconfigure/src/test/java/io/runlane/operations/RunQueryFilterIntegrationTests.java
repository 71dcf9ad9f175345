package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.BulkResult;
import io.runlane.ConfigurationInvalidException;
import io.runlane.InvalidKeyException;
import io.runlane.RunContext;
import io.runlane.RunFailure;
import io.runlane.RunOperations;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.RunlaneException;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * S-OP-15: {@code RunQuery}'s priority range, failure message prefix and key prefixes select runs against real
 * PostgreSQL, in {@code list} and in the bulk actions, and reject bad bounds and prefixes naming the field.
 */
@RunlaneDatabaseTest
class RunQueryFilterIntegrationTests {

    @Task(id = "filters.report")
    public static class Report implements TaskHandler<Report.Payload> {

        public record Payload(String name) {}

        @Override
        public void run(Payload payload, RunContext context) {}
    }

    @Task(id = "filters.mail", queue = "mail")
    public static class Mail implements TaskHandler<Report.Payload> {

        @Override
        public void run(Report.Payload payload, RunContext context) {}
    }

    @Pool(size = 4)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("run_filters") String schema) {
        runlane = TestRunlane.start(
                dataSource, schema, settings -> settings.withQueues(Set.of("mail")), new Report(), new Mail());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    private RunOperations runs() {
        return runlane.template().runs();
    }

    private UUID trigger(String taskId, UnaryOperator<TriggerOptions.Builder> options) {
        return runlane.template()
                .trigger(
                        taskId,
                        new Report.Payload("x"),
                        options.apply(TriggerOptions.builder()).build())
                .runId();
    }

    private UUID failed(String message) {
        UUID id = trigger("filters.report", options -> options);
        return runlane.engine()
                .transitions()
                .finish(
                        id,
                        RunStatus.FAILED,
                        new RunFailure("exception", "java.lang.IllegalStateException", message),
                        "test",
                        null)
                .orElseThrow()
                .id();
    }

    /** Every run the query selects, read in pages of two. */
    private Set<UUID> listed(RunQuery.Builder query) {
        List<UUID> ids = new ArrayList<>();
        String cursor = null;
        do {
            var page = runs().list(query.cursor(cursor).limit(2).build());
            page.items().forEach(run -> ids.add(run.id()));
            cursor = page.nextCursor();
        } while (cursor != null);
        assertThat(ids).as("no run listed twice").doesNotHaveDuplicates();
        return new HashSet<>(ids);
    }

    @Test
    @DisplayName("S-OP-15: the priority range is inclusive at both ends and combines with the queue filter")
    void priorityRangeIsInclusiveAndCombinesWithQueues() {
        UUID lowest = trigger("filters.report", options -> options.priority(-100));
        UUID low = trigger("filters.report", options -> options.priority(-5));
        UUID normal = trigger("filters.report", options -> options);
        UUID high = trigger("filters.report", options -> options.priority(5));
        UUID highest = trigger("filters.report", options -> options.priority(100));
        UUID mail = trigger("filters.mail", options -> options.priority(5));

        assertThat(listed(RunQuery.builder().minPriority(0))).containsExactlyInAnyOrder(normal, high, highest, mail);
        assertThat(listed(RunQuery.builder().maxPriority(0))).containsExactlyInAnyOrder(lowest, low, normal);
        assertThat(listed(RunQuery.builder().minPriority(-5).maxPriority(5)))
                .containsExactlyInAnyOrder(low, normal, high, mail);
        assertThat(listed(RunQuery.builder().priority(5))).containsExactlyInAnyOrder(high, mail);
        assertThat(listed(RunQuery.builder().priority(5).queues("mail"))).containsExactly(mail);
        assertThat(listed(RunQuery.builder().minPriority(1).queues("default")))
                .containsExactlyInAnyOrder(high, highest);
        assertThat(listed(RunQuery.builder().minPriority(-100).maxPriority(100)))
                .as("the whole range: every run")
                .hasSize(6);
        assertThat(runlane.run(mail).priority()).isEqualTo(5);
    }

    @Test
    @DisplayName("S-OP-15: a failure message prefix is literal and case-sensitive: %, _ and \\ match only themselves")
    void failureMessagePrefixIsLiteral() {
        UUID percent = failed("50% of the batch failed");
        UUID fifty = failed("50 rows failed");
        UUID underscore = failed("a_b timed out");
        UUID other = failed("axb timed out");
        UUID backslash = failed("C:\\data\\in is missing");
        UUID upper = failed("Timeout after 5 s");
        UUID lower = failed("timeout after 5 s");
        UUID succeeded = trigger("filters.report", options -> options);

        assertThat(listed(RunQuery.builder().failureMessagePrefix("50%"))).containsExactly(percent);
        assertThat(listed(RunQuery.builder().failureMessagePrefix("50"))).containsExactlyInAnyOrder(percent, fifty);
        assertThat(listed(RunQuery.builder().failureMessagePrefix("a_b"))).containsExactly(underscore);
        assertThat(listed(RunQuery.builder().failureMessagePrefix("a_"))).containsExactly(underscore);
        assertThat(listed(RunQuery.builder().failureMessagePrefix("C:\\data\\")))
                .containsExactly(backslash);
        assertThat(listed(RunQuery.builder().failureMessagePrefix("C:\\"))).containsExactly(backslash);
        assertThat(listed(RunQuery.builder().failureMessagePrefix("Timeout"))).containsExactly(upper);
        assertThat(listed(RunQuery.builder().failureMessagePrefix("timeout"))).containsExactly(lower);
        assertThat(listed(RunQuery.builder().failureMessagePrefix("%"))).isEmpty();
        assertThat(listed(RunQuery.builder().failureMessagePrefix("axb timed out")))
                .containsExactly(other);
        assertThat(listed(RunQuery.builder().failureMessagePrefix("timeout").failureCodes("exception")))
                .containsExactly(lower);
        assertThat(listed(RunQuery.builder().failureMessagePrefix("timeout").failureCodes("other")))
                .isEmpty();
        assertThat(listed(RunQuery.builder().failureMessagePrefix("t").statuses(RunStatus.QUEUED)))
                .as("a run without a failure never matches")
                .isEmpty();
        assertThat(runlane.run(succeeded).status()).isEqualTo(RunStatus.QUEUED);
    }

    @Test
    @DisplayName("S-OP-15: key prefixes select the keys that start with them, case-sensitive, without wildcards")
    void keyPrefixesSelectTheKeysThatStartWithThem() {
        Map<String, UUID> byKey = new java.util.LinkedHashMap<>();
        for (String key : List.of(
                "order-1",
                "order-12",
                "order-2",
                "orders",
                "Order-1",
                "order_1",
                "ordeR",
                "é-1",
                "é-2",
                "e-1",
                "x\uD7FFz",
                "x\uE000",
                "y\uDBFF\uDFFFa",
                "yz")) {
            byKey.put(key, trigger("filters.report", options -> options.idempotencyKey(key)));
        }
        UUID singletonA = trigger("filters.mail", options -> options.singletonKey("tenant-7.sync"));
        UUID singletonB = trigger("filters.mail", options -> options.singletonKey("tenant-70.sync"));
        UUID singletonC = trigger("filters.mail", options -> options.singletonKey("tenant_7.sync"));

        assertThat(listed(RunQuery.builder().idempotencyKeyPrefix("order-1")))
                .containsExactlyInAnyOrder(byKey.get("order-1"), byKey.get("order-12"));
        assertThat(listed(RunQuery.builder().idempotencyKeyPrefix("order")))
                .containsExactlyInAnyOrder(
                        byKey.get("order-1"),
                        byKey.get("order-12"),
                        byKey.get("order-2"),
                        byKey.get("orders"),
                        byKey.get("order_1"));
        assertThat(listed(RunQuery.builder().idempotencyKeyPrefix("order_"))).containsExactly(byKey.get("order_1"));
        assertThat(listed(RunQuery.builder().idempotencyKeyPrefix("Order"))).containsExactly(byKey.get("Order-1"));
        assertThat(listed(RunQuery.builder().idempotencyKeyPrefix("order-12"))).containsExactly(byKey.get("order-12"));
        assertThat(listed(RunQuery.builder().idempotencyKeyPrefix("order-123"))).isEmpty();
        assertThat(listed(RunQuery.builder().idempotencyKeyPrefix("é")))
                .containsExactlyInAnyOrder(byKey.get("é-1"), byKey.get("é-2"));
        assertThat(listed(RunQuery.builder().idempotencyKeyPrefix("x\uD7FF"))).containsExactly(byKey.get("x\uD7FFz"));
        assertThat(listed(RunQuery.builder().idempotencyKeyPrefix("y\uDBFF\uDFFF")))
                .as("a prefix ending in U+10FFFF")
                .containsExactly(byKey.get("y\uDBFF\uDFFFa"));
        assertThat(listed(RunQuery.builder().idempotencyKeyPrefix("order ")))
                .as("a prefix may end with a space")
                .isEmpty();
        assertThat(listed(RunQuery.builder().idempotencyKey("order-1")))
                .as("the exact key stays exact")
                .containsExactly(byKey.get("order-1"));
        assertThat(listed(RunQuery.builder().idempotencyKeyPrefix("order-1").taskIds("filters.mail")))
                .isEmpty();

        assertThat(listed(RunQuery.builder().singletonKeyPrefix("tenant-7")))
                .containsExactlyInAnyOrder(singletonA, singletonB);
        assertThat(listed(RunQuery.builder().singletonKeyPrefix("tenant-7."))).containsExactly(singletonA);
        assertThat(listed(RunQuery.builder().singletonKeyPrefix("tenant_"))).containsExactly(singletonC);
        assertThat(listed(RunQuery.builder().singletonKey("tenant-7.sync"))).containsExactly(singletonA);
        assertThat(listed(RunQuery.builder().singletonKeyPrefix("order"))).isEmpty();
    }

    @Test
    @DisplayName("S-OP-15, S-RV-4: cancelAll and resumeAll act only on the runs the new filters select")
    void bulkActionsHonourTheNewFilters() {
        UUID orderA = trigger(
                "filters.report",
                options -> options.idempotencyKey("bulk-order-1").priority(10));
        UUID orderB = trigger("filters.report", options -> options.idempotencyKey("bulk-order-2"));
        UUID other = trigger(
                "filters.report",
                options -> options.idempotencyKey("bulk-invoice-1").priority(10));

        BulkResult cancelled = runs().cancelAll(
                        RunQuery.builder()
                                .idempotencyKeyPrefix("bulk-order-")
                                .minPriority(1)
                                .build(),
                        10);

        assertThat(cancelled.acted()).isEqualTo(1);
        assertThat(runlane.run(orderA).status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runlane.run(orderB).status()).isEqualTo(RunStatus.QUEUED);
        assertThat(runlane.run(other).status()).isEqualTo(RunStatus.QUEUED);

        UUID refused = failed("upstream refused: 503");
        UUID timedOut = failed("upstream timed out");
        BulkResult resumed = runs().resumeAll(
                        RunQuery.builder()
                                .failureMessagePrefix("upstream refused")
                                .build(),
                        10);

        assertThat(resumed.acted()).isEqualTo(1);
        assertThat(runlane.run(refused).status()).isEqualTo(RunStatus.QUEUED);
        assertThat(runlane.run(timedOut).status()).isEqualTo(RunStatus.FAILED);
    }

    @Test
    @DisplayName("S-OP-15: a bad priority bound or prefix fails naming the field, in list and the bulk actions, and"
            + " writes nothing")
    void badBoundsAndPrefixesFailNamingTheField() {
        trigger("filters.report", options -> options.idempotencyKey("kept"));
        failed("kept failure");
        TestRunlane.RowCounts before = runlane.rowCounts();
        String tooLongKey = "k".repeat(256);
        String tooLongMessage = "m".repeat(RunQuery.MAX_MESSAGE_PREFIX_LENGTH + 1);

        Map<String, List<RunQuery.Builder>> bad = Map.of(
                "minPriority",
                List.of(RunQuery.builder().minPriority(-101), RunQuery.builder().minPriority(101)),
                "maxPriority",
                List.of(
                        RunQuery.builder().maxPriority(101),
                        RunQuery.builder().maxPriority(-101),
                        RunQuery.builder().minPriority(5).maxPriority(4)),
                "failureMessagePrefix",
                List.of(
                        RunQuery.builder().failureMessagePrefix(""),
                        RunQuery.builder().failureMessagePrefix(" \t "),
                        RunQuery.builder().failureMessagePrefix(tooLongMessage)),
                "idempotencyKeyPrefix",
                List.of(
                        RunQuery.builder().idempotencyKeyPrefix(""),
                        RunQuery.builder().idempotencyKeyPrefix("  "),
                        RunQuery.builder().idempotencyKeyPrefix(tooLongKey),
                        RunQuery.builder().idempotencyKeyPrefix("a:b"),
                        RunQuery.builder().idempotencyKeyPrefix(" lead"),
                        RunQuery.builder().idempotencyKeyPrefix("bell\u0007")),
                "singletonKeyPrefix",
                List.of(
                        RunQuery.builder().singletonKeyPrefix(""),
                        RunQuery.builder().singletonKeyPrefix(" "),
                        RunQuery.builder().singletonKeyPrefix(tooLongKey),
                        RunQuery.builder().singletonKeyPrefix("a:b")));

        bad.forEach((field, queries) -> {
            for (RunQuery.Builder builder : queries) {
                RunQuery query = builder.build();
                Class<? extends RunlaneException> type =
                        field.endsWith("KeyPrefix") ? InvalidKeyException.class : ConfigurationInvalidException.class;
                assertThatThrownBy(() -> runs().list(query))
                        .as("%s in %s", field, query)
                        .isInstanceOf(type)
                        .hasMessageContaining(field);
                assertThatThrownBy(() -> runs().cancelAll(query, 10))
                        .isInstanceOf(type)
                        .hasMessageContaining(field);
                assertThatThrownBy(() -> runs().resumeAll(query, 10))
                        .isInstanceOf(type)
                        .hasMessageContaining(field);
            }
        });
        assertThat(runlane.rowCounts()).isEqualTo(before);
        assertThat(listed(RunQuery.builder().statuses(RunStatus.QUEUED))).hasSize(1);
        assertThat(listed(RunQuery.builder().statuses(RunStatus.FAILED))).hasSize(1);
    }
}
