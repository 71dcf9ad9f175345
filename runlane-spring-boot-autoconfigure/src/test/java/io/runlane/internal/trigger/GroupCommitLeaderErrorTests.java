package io.runlane.internal.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.runlane.SingletonConflictPolicy;
import io.runlane.internal.kernel.GroupCommit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * S-TR-13: whatever a group's leader meets, an {@link Error} included, every caller of the group gets an answer or
 * an exception; none waits forever for a leader that gave up.
 */
class GroupCommitLeaderErrorTests {

    /** What the group statement throws: an error, not an exception. */
    static final class StatementError extends Error {

        StatementError() {
            super("the group statement broke");
        }
    }

    @Test
    @DisplayName("S-TR-13: an Error from the group statement fails every caller of the group with it, none hangs")
    void errorFromTheGroupStatementFailsEveryCaller() throws Exception {
        int callerCount = 12;
        StatementError error = new StatementError();
        CountDownLatch lanesTaken = new CountDownLatch(RunAdmissions.GROUPS.lanes());
        List<Integer> groupSizes = new CopyOnWriteArrayList<>();
        GroupCommit<NewRun, Admission> groups = new GroupCommit<>(
                RunAdmissions.GROUPS,
                runs -> {
                    groupSizes.add(runs.size());
                    lanesTaken.countDown();
                    try {
                        // the first groups stay in flight until others queue up behind them
                        lanesTaken.await(5, TimeUnit.SECONDS);
                        Thread.sleep(50);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                    throw error;
                },
                run -> {
                    throw new AssertionError("no run is handed back");
                });
        ExecutorService callers = Executors.newFixedThreadPool(callerCount, runnable -> {
            Thread thread = new Thread(runnable, "group-commit-caller");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<Admission>> answers = new ArrayList<>();
            for (int caller = 0; caller < callerCount; caller++) {
                NewRun run = run("caller-" + caller);
                answers.add(callers.submit(() -> groups.write(run)));
            }

            await().atMost(Duration.ofSeconds(10))
                    .alias("every caller has its answer")
                    .until(() -> answers.stream().allMatch(Future::isDone));
            for (Future<Admission> answer : answers) {
                assertThat(failure(answer)).isSameAs(error);
            }
            assertThat(groupSizes)
                    .as("callers queued behind the first groups shared a statement with its leader")
                    .anyMatch(size -> size > 1);
        } finally {
            callers.shutdownNow();
        }
    }

    private static @Nullable Throwable failure(Future<Admission> answer) throws InterruptedException {
        try {
            answer.get();
            return null;
        } catch (ExecutionException ex) {
            return ex.getCause();
        }
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
