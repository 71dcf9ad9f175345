package io.runlane.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.SingletonConflictPolicy;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.Concurrently.Outcome;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;

/**
 * How groups form (S-TR-13): at most {@link GroupCommit#LANES} statements are in flight, callers that arrive meanwhile
 * are grouped, and which failures of a group statement leave the group's outcome unknown.
 */
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

    @Test
    @DisplayName("S-TR-13: two groups are in flight at once, never more; callers arriving meanwhile share a statement")
    void twoLanesAndTheRestGrouped() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        CountDownLatch bothLanesTaken = new CountDownLatch(GroupCommit.LANES);
        List<Integer> groupSizes = new CopyOnWriteArrayList<>();
        GroupCommit groups = new GroupCommit(
                runs -> {
                    mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    groupSizes.add(runs.size());
                    bothLanesTaken.countDown();
                    try {
                        bothLanesTaken.await(5, TimeUnit.SECONDS);
                        Thread.sleep(20);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    } finally {
                        inFlight.decrementAndGet();
                    }
                    return runs.stream()
                            .<@Nullable Admission>map(run -> new Admission.SingletonHeld(run.taskId(), run.id()))
                            .toList();
                },
                run -> {
                    throw new AssertionError("no run is handed back");
                });

        List<Outcome<Admission>> answers = Concurrently.run(8, caller -> () -> groups.admit(run("caller-" + caller)));

        assertThat(answers).noneMatch(Outcome::failed);
        assertThat(answers)
                .extracting(outcome -> ((Admission.SingletonHeld) outcome.value()).singletonKey())
                .containsExactlyInAnyOrder(
                        IntStream.range(0, 8).mapToObj(i -> "caller-" + i).toArray(String[]::new));
        assertThat(bothLanesTaken.getCount())
                .as("a second group started while the first was in flight")
                .isZero();
        assertThat(mostInFlight.get()).isEqualTo(GroupCommit.LANES);
        assertThat(groupSizes)
                .as("runs queued while both lanes were taken shared a statement")
                .anyMatch(size -> size > 1);
    }

    private static NewRun run(String taskId) {
        return new NewRun(
                UUID.randomUUID(),
                taskId,
                "default",
                "{}",
                null,
                null,
                null,
                null,
                1,
                null,
                null,
                null,
                null,
                SingletonConflictPolicy.FAIL,
                null,
                Map.of());
    }
}
