package io.runlane.internal.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.SingletonConflictPolicy;
import io.runlane.internal.kernel.GroupCommit;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.Concurrently.Outcome;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
 * How groups form (S-TR-13): with many callers, a few statements are in flight and callers that arrive meanwhile are
 * grouped; a few callers each lead their own; and which failures of a group statement leave the group's outcome
 * unknown.
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
    @DisplayName("S-TR-13: with many callers, a few groups are in flight and callers arriving meanwhile share a"
            + " statement")
    void manyCallersAreGrouped() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        CountDownLatch lanesTaken = new CountDownLatch(RunAdmissions.GROUPS.lanes());
        List<Integer> groupSizes = new CopyOnWriteArrayList<>();
        GroupCommit<NewRun, Admission> groups = new GroupCommit<>(
                RunAdmissions.GROUPS,
                runs -> {
                    mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    groupSizes.add(runs.size());
                    lanesTaken.countDown();
                    try {
                        lanesTaken.await(5, TimeUnit.SECONDS);
                        Thread.sleep(20);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    } finally {
                        inFlight.decrementAndGet();
                    }
                    return held(runs);
                },
                run -> {
                    throw new AssertionError("no run is handed back");
                });

        List<Outcome<Admission>> answers = Concurrently.run(12, caller -> () -> groups.write(run("caller-" + caller)));

        assertThat(answers).noneMatch(Outcome::failed);
        assertThat(answers)
                .extracting(outcome -> ((Admission.SingletonHeld) outcome.value()).singletonKey())
                .containsExactlyInAnyOrder(
                        IntStream.range(0, 12).mapToObj(i -> "caller-" + i).toArray(String[]::new));
        assertThat(lanesTaken.getCount())
                .as("a second group started while the first was in flight")
                .isZero();
        assertThat(mostInFlight.get()).isBetween(RunAdmissions.GROUPS.lanes(), RunAdmissions.GROUPS.soloLanes());
        assertThat(groupSizes)
                .as("runs queued while the lanes were taken shared a statement")
                .anyMatch(size -> size > 1);
    }

    @Test
    @DisplayName("S-TR-13: while no more callers than the solo lanes are admitting, a caller finding every other"
            + " caller's statement in flight leads its own at once instead of waiting to be grouped")
    void fewCallersLeadAlone() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        CountDownLatch finish = new CountDownLatch(1);
        List<Integer> groupSizes = new CopyOnWriteArrayList<>();
        GroupCommit<NewRun, Admission> groups = new GroupCommit<>(
                RunAdmissions.GROUPS,
                runs -> {
                    groupSizes.add(runs.size());
                    inFlight.incrementAndGet();
                    try {
                        finish.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                    return held(runs);
                },
                run -> {
                    throw new AssertionError("no run is handed back");
                });
        ExecutorService callers = Executors.newFixedThreadPool(RunAdmissions.GROUPS.soloLanes());
        try {
            List<Future<Admission>> answers = new ArrayList<>();
            for (int caller = 0; caller < RunAdmissions.GROUPS.soloLanes(); caller++) {
                NewRun run = run("caller-" + caller);
                answers.add(callers.submit(() -> groups.write(run)));
                int started = caller + 1;
                await().atMost(Duration.ofSeconds(5))
                        .alias("caller " + started + "'s statement in flight beside the earlier callers'")
                        .untilAsserted(() -> assertThat(inFlight.get()).isEqualTo(started));
            }
            finish.countDown();
            for (Future<Admission> answer : answers) {
                assertThat(answer.get(10, TimeUnit.SECONDS)).isInstanceOf(Admission.SingletonHeld.class);
            }
        } finally {
            finish.countDown();
            callers.shutdownNow();
        }
        assertThat(groupSizes).containsOnly(1).hasSize(RunAdmissions.GROUPS.soloLanes());
    }

    private static List<@Nullable Admission> held(List<NewRun> runs) {
        return runs.stream()
                .<@Nullable Admission>map(run -> new Admission.SingletonHeld(run.taskId(), run.id()))
                .toList();
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
                Map.of(),
                0,
                null,
                null,
                null);
    }
}
