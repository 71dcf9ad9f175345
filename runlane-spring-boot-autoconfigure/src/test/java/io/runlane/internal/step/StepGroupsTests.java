package io.runlane.internal.step;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.internal.kernel.GroupCommit;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * How the steps' groups form ({@link StepRecorder#LIMITS}, S-ST-16), with statements that stand in for the database:
 * with many recording threads a few groups are in flight and the steps queued meanwhile share a statement; a few
 * threads each record at once; and whatever a group's statement meets, every caller gets its own answer or the
 * group's failure, and none hangs.
 */
class StepGroupsTests {

    private static final GroupCommit.Limits LIMITS = StepRecorder.LIMITS;

    private final List<Thread> callerThreads = new CopyOnWriteArrayList<>();

    private final ExecutorService callers = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "step-recorder-" + callerThreads.size());
        thread.setDaemon(true);
        callerThreads.add(thread);
        return thread;
    });

    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stopCallers() {
        release.countDown();
        callers.shutdownNow();
    }

    @Test
    @DisplayName("S-ST-16: with more recording threads than solo lanes, a few groups are in flight and the steps"
            + " queued behind them share a statement")
    void manyRecordingThreadsShareStatements() throws Exception {
        int callerCount = 3 * LIMITS.soloLanes();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        List<Integer> groupSizes = new CopyOnWriteArrayList<>();
        GroupCommit<Integer, Boolean> groups = new GroupCommit<>(
                LIMITS,
                steps -> {
                    mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    groupSizes.add(steps.size());
                    awaitRelease();
                    inFlight.decrementAndGet();
                    return recorded(steps);
                },
                step -> {
                    throw new AssertionError("no step is handed back");
                });

        List<Future<Boolean>> answers = new ArrayList<>();
        for (int caller = 0; caller < callerCount; caller++) {
            int step = caller;
            answers.add(callers.submit(() -> groups.write(step)));
        }
        awaitEveryCallerWaiting(callerCount);
        release.countDown();

        for (Future<Boolean> answer : answers) {
            assertThat(answer.get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(groupSizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(callerCount);
        assertThat(groupSizes)
                .as("the steps queued while the lanes were taken shared a statement")
                .anyMatch(size -> size > 1);
        assertThat(mostInFlight.get()).isBetween(1, LIMITS.soloLanes());
    }

    @Test
    @DisplayName("S-ST-16: while no more threads than the solo lanes record, each records at once in a statement of"
            + " its own, waiting for no company")
    void fewRecordingThreadsRecordAtOnce() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        List<Integer> groupSizes = new CopyOnWriteArrayList<>();
        GroupCommit<Integer, Boolean> groups = new GroupCommit<>(
                LIMITS,
                steps -> {
                    groupSizes.add(steps.size());
                    inFlight.incrementAndGet();
                    awaitRelease();
                    return recorded(steps);
                },
                step -> {
                    throw new AssertionError("no step is handed back");
                });

        List<Future<Boolean>> answers = new ArrayList<>();
        for (int caller = 0; caller < LIMITS.soloLanes(); caller++) {
            int step = caller;
            answers.add(callers.submit(() -> groups.write(step)));
            int started = caller + 1;
            await().atMost(Duration.ofSeconds(5))
                    .alias("caller " + started + "'s statement in flight beside the earlier callers'")
                    .until(() -> inFlight.get() == started);
        }
        release.countDown();

        for (Future<Boolean> answer : answers) {
            assertThat(answer.get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(groupSizes).containsOnly(1).hasSize(LIMITS.soloLanes());
    }

    @Test
    @DisplayName("S-ST-16: a group statement the database refused hands each step back to its own caller, who records"
            + " it alone on its own thread")
    void refusedGroupHandsEveryStepBack() throws Exception {
        Map<Integer, String> recordedAloneOn = new ConcurrentHashMap<>();
        AtomicInteger refusedGroups = new AtomicInteger();
        GroupCommit<Integer, Boolean> groups = new GroupCommit<>(
                LIMITS,
                steps -> {
                    awaitRelease();
                    if (steps.size() > 1) {
                        refusedGroups.incrementAndGet();
                        throw new CannotAcquireLockException(
                                "group", new SQLException("canceling statement due to lock timeout", "55P03"));
                    }
                    return recorded(steps);
                },
                step -> {
                    recordedAloneOn.put(step, Thread.currentThread().getName());
                    return true;
                });

        Map<Integer, Future<String>> answers = writeAll(
                groups, 3 * LIMITS.soloLanes(), step -> Thread.currentThread().getName());

        assertThat(refusedGroups.get()).as("refused groups").isPositive();
        answers.forEach((step, answer) -> {
            if (recordedAloneOn.containsKey(step)) {
                assertThat(recordedAloneOn.get(step))
                        .as("step %d recorded alone on its caller's thread", step)
                        .isEqualTo(result(answer));
            }
        });
    }

    @Test
    @DisplayName("S-ST-16: a broken connection leaves a group's outcome unknown: every step of the group fails with"
            + " it, none is recorded again alone")
    void brokenConnectionFailsTheGroup() throws Exception {
        DataAccessResourceFailureException broken = new DataAccessResourceFailureException(
                "gone", new SQLException("An I/O error occurred while sending to the backend", "08006"));
        GroupCommit<Integer, Boolean> groups = new GroupCommit<>(
                LIMITS,
                steps -> {
                    awaitRelease();
                    throw broken;
                },
                step -> {
                    throw new AssertionError("no step is handed back");
                });

        Map<Integer, Future<String>> answers = writeAll(groups, 3 * LIMITS.soloLanes(), step -> "recorded");

        answers.values().forEach(answer -> assertThat(failure(answer)).isSameAs(broken));
    }

    @Test
    @DisplayName("S-ST-16: an Error from a group statement fails every step of the group with it, and no caller"
            + " waits forever for a leader that gave up")
    void errorFromTheGroupStatementFailsEveryCaller() throws Exception {
        StatementError error = new StatementError();
        GroupCommit<Integer, Boolean> groups = new GroupCommit<>(
                LIMITS,
                steps -> {
                    awaitRelease();
                    throw error;
                },
                step -> {
                    throw new AssertionError("no step is handed back");
                });

        Map<Integer, Future<String>> answers = writeAll(groups, 3 * LIMITS.soloLanes(), step -> "recorded");

        answers.values().forEach(answer -> assertThat(failure(answer)).isSameAs(error));
    }

    /**
     * Starts {@code callerCount} callers, lets the groups' statements go once every caller leads one or is parked
     * behind one, and returns each caller's future, done: the caller's {@code then} after its answer.
     */
    private Map<Integer, Future<String>> writeAll(
            GroupCommit<Integer, Boolean> groups, int callerCount, Function<Integer, String> then) {
        Map<Integer, Future<String>> answers = new ConcurrentHashMap<>();
        for (int caller = 0; caller < callerCount; caller++) {
            int step = caller;
            answers.put(step, callers.submit(() -> {
                groups.write(step);
                return then.apply(step);
            }));
        }
        awaitEveryCallerWaiting(callerCount);
        release.countDown();
        await().atMost(Duration.ofSeconds(10))
                .alias("every caller has its answer")
                .until(() -> answers.values().stream().allMatch(Future::isDone));
        return answers;
    }

    /**
     * Waits until every caller either leads a group whose statement waits for the release, or is parked behind one
     * (its step queued, or in a group in flight).
     */
    private void awaitEveryCallerWaiting(int callerCount) {
        await().atMost(Duration.ofSeconds(10))
                .alias("every caller leading a statement or parked behind one")
                .until(() -> callerThreads.stream()
                                .filter(thread -> thread.getState() == Thread.State.WAITING
                                        || thread.getState() == Thread.State.TIMED_WAITING)
                                .count()
                        == callerCount);
    }

    private void awaitRelease() {
        try {
            assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    private static List<@Nullable Boolean> recorded(List<Integer> steps) {
        return steps.stream().<@Nullable Boolean>map(step -> Boolean.TRUE).toList();
    }

    private static @Nullable String result(Future<String> answer) {
        try {
            return answer.get();
        } catch (InterruptedException | ExecutionException ex) {
            throw new AssertionError(ex);
        }
    }

    private static @Nullable Throwable failure(Future<String> answer) {
        try {
            answer.get();
            return null;
        } catch (ExecutionException ex) {
            return ex.getCause();
        } catch (InterruptedException ex) {
            throw new AssertionError(ex);
        }
    }

    /** What the group statement throws: an error, not an exception. */
    static final class StatementError extends Error {

        private static final long serialVersionUID = 1L;

        StatementError() {
            super("the group statement broke");
        }
    }
}
