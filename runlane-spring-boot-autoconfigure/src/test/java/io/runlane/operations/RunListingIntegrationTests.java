package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.ConfigurationInvalidException;
import io.runlane.Page;
import io.runlane.Run;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.TriggerOptions;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.ConfirmOrder;
import io.runlane.testsupport.TestTasks.SendMail;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** S-OP-1: listing runs with filters and cursor paging. */
@RunlaneDatabaseTest
class RunListingIntegrationTests {

    @Pool(size = 8)
    private static HikariDataSource dataSource;

    private static TestRunlane runlane;

    @BeforeAll
    static void start(@FreshSchema("listing") String schema) {
        runlane =
                TestRunlane.start(dataSource, schema, settings -> settings.withQueues(Set.of("bulk")), TestTasks.all());
    }

    private static List<Run> allPages(RunQuery query) {
        List<Run> seen = new ArrayList<>();
        Page<Run> page = runlane.template().runs().list(query);
        seen.addAll(page.items());
        while (page.hasNext()) {
            page = runlane.template().runs().list(query.after(page.nextCursor()));
            assertThat(page.items()).hasSizeLessThanOrEqualTo(query.limit());
            seen.addAll(page.items());
        }
        return seen;
    }

    @Test
    @DisplayName("S-OP-1, S-OP-6: paging returns every matching run exactly once while new runs are inserted")
    void pagingReturnsEveryRunOnceWhileRunsAreInserted() {
        String tag = UUID.randomUUID().toString();
        List<UUID> existing = IntStream.range(0, 230)
                .mapToObj(i -> runlane.template()
                        .trigger(
                                "mail.send",
                                new SendMail.Payload(tag),
                                TriggerOptions.builder().queue("bulk").build())
                        .runId())
                .toList();
        AtomicBoolean inserting = new AtomicBoolean(true);
        CompletableFuture<Integer> inserter = CompletableFuture.supplyAsync(() -> {
            int inserted = 0;
            while (inserting.get()) {
                runlane.template()
                        .trigger(
                                "mail.send",
                                new SendMail.Payload(tag),
                                TriggerOptions.builder().queue("bulk").build());
                inserted++;
            }
            return inserted;
        });
        try {
            List<Run> seen =
                    allPages(RunQuery.builder().queues("bulk").limit(17).build());

            List<UUID> ids = seen.stream().map(Run::id).toList();
            assertThat(ids).doesNotHaveDuplicates();
            assertThat(ids).containsAll(existing);
            assertThat(ids).isSortedAccordingTo(java.util.Comparator.reverseOrder());
        } finally {
            inserting.set(false);
        }
        assertThat(inserter.join()).isPositive();
    }

    @Test
    @DisplayName("S-OP-1: filters by status, task, queue, keys and time ranges")
    void filtersNarrowTheListing() {
        String orderId = "o-" + UUID.randomUUID().toString().substring(0, 8);
        Instant before = runlane.jdbc()
                .queryForObject("SELECT now()", java.time.OffsetDateTime.class)
                .toInstant();
        Run order = runlane.template()
                .trigger("orders.confirm", new ConfirmOrder.Payload(orderId, 1))
                .run();
        Run finished = runlane.template()
                .trigger("orders.confirm", new ConfirmOrder.Payload(orderId + "-done", 1))
                .run();
        runlane.finish(finished.id(), RunStatus.SUCCEEDED);

        assertThat(ids(RunQuery.builder().idempotencyKey("order." + orderId).build()))
                .containsExactly(order.id());
        assertThat(ids(RunQuery.builder()
                        .taskIds("orders.confirm")
                        .statuses(RunStatus.SUCCEEDED)
                        .createdBetween(before, null)
                        .build()))
                .containsExactly(finished.id());
        assertThat(ids(RunQuery.builder()
                        .taskIds("orders.confirm")
                        .createdBetween(before, null)
                        .build()))
                .containsExactly(finished.id(), order.id());
        assertThat(ids(RunQuery.builder()
                        .finishedBetween(before, null)
                        .taskIds("orders.confirm")
                        .build()))
                .containsExactly(finished.id());
        assertThat(ids(RunQuery.builder()
                        .taskIds("orders.confirm")
                        .createdBetween(null, before)
                        .build()))
                .doesNotContain(order.id(), finished.id());
        assertThat(ids(RunQuery.builder()
                        .queues("bulk")
                        .idempotencyKey("order." + orderId)
                        .build()))
                .isEmpty();
    }

    private static List<UUID> ids(RunQuery query) {
        return allPages(query).stream().map(Run::id).toList();
    }

    @Test
    @DisplayName("S-OP-1: the limit is clamped and a foreign cursor is rejected")
    void limitIsClampedAndBadCursorsRejected() {
        assertThat(RunQuery.builder().limit(0).build().limit()).isEqualTo(1);
        assertThat(RunQuery.builder().limit(100_000).build().limit()).isEqualTo(RunQuery.MAX_LIMIT);
        assertThatExceptionOfType(ConfigurationInvalidException.class)
                .isThrownBy(() -> runlane.template()
                        .runs()
                        .list(RunQuery.builder().cursor("not-a-cursor").build()))
                .withMessageContaining("cursor");
        assertThatExceptionOfType(io.runlane.InvalidKeyException.class)
                .as("S-ID-1: filter keys follow the key rules")
                .isThrownBy(() -> runlane.template()
                        .runs()
                        .list(RunQuery.builder().taskIds("bad:id").build()))
                .withMessageContaining("taskIds");
        assertThatExceptionOfType(io.runlane.InvalidKeyException.class)
                .isThrownBy(() -> runlane.template()
                        .runs()
                        .list(RunQuery.builder().idempotencyKey(" padded").build()))
                .withMessageContaining("idempotencyKey");
        Set<UUID> firstPage = new HashSet<>(
                runlane.template().runs().list(RunQuery.builder().limit(1).build()).items().stream()
                        .map(Run::id)
                        .toList());
        assertThat(firstPage).hasSize(1);
    }
}
