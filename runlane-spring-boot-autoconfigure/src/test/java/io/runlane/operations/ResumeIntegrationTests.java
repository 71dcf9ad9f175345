package io.runlane.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.IdempotencyKeyActiveException;
import io.runlane.IdempotencyKeyTtl;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunEvent;
import io.runlane.RunEventType;
import io.runlane.RunNotFoundException;
import io.runlane.RunStateException;
import io.runlane.RunStatus;
import io.runlane.SingletonConflictException;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.TriggerOptions;
import io.runlane.TriggerOutcome;
import io.runlane.TriggerResult;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.Concurrently;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks.SendMail;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** S-RV-1, S-RV-2: resuming a failed or cancelled run in place keeps its id, steps, step ids and keys. */
@RunlaneDatabaseTest
class ResumeIntegrationTests {

    /** Calls of each step function, by "<run id>/<step>". */
    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    /** The step ids the {@code ship} step saw, by run id. */
    static final Map<UUID, List<String>> SHIP_STEP_IDS = new ConcurrentHashMap<>();

    /** How many calls of {@code ship} fail before one succeeds. */
    static final AtomicInteger SHIP_FAILURES = new AtomicInteger();

    static int calls(UUID runId, String step) {
        return CALLS.getOrDefault(runId + "/" + step, new AtomicInteger()).get();
    }

    /** Charges once, then ships; shipping fails as often as {@link #SHIP_FAILURES} says. Two attempts at most. */
    @Task(id = "resume.checkout", maxAttempts = 2)
    public static class Checkout implements TaskHandler<Checkout.Payload> {

        public record Payload(String order) {}

        @Override
        public void run(Payload payload, RunContext context) throws Exception {
            context.step("charge", String.class, step -> {
                CALLS.computeIfAbsent(step.runId() + "/charge", key -> new AtomicInteger())
                        .incrementAndGet();
                return "ch_" + payload.order();
            });
            context.step("ship", step -> {
                CALLS.computeIfAbsent(step.runId() + "/ship", key -> new AtomicInteger())
                        .incrementAndGet();
                SHIP_STEP_IDS
                        .computeIfAbsent(step.runId(), key -> new CopyOnWriteArrayList<>())
                        .add(step.stepId());
                if (SHIP_FAILURES.getAndDecrement() > 0) {
                    throw new IllegalStateException("carrier down");
                }
            });
        }
    }

    @Pool(size = 12)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("resume") String schema) {
        SHIP_FAILURES.set(0);
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults()
                        .withWorker(2, Duration.ofMillis(100))
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)),
                EngineListener.NONE,
                new Checkout(),
                new SendMail());
    }

    @AfterEach
    void stop() {
        runlane.stop();
    }

    private Run awaitStatus(UUID runId, RunStatus status) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> runlane.run(runId), run -> run.status() == status);
    }

    private List<RunEvent> events(UUID runId) {
        return runlane.template().runs().events(runId);
    }

    private Run mail(TriggerOptions options) {
        return runlane.template()
                .trigger("mail.send", new SendMail.Payload("a@example.com"), options)
                .run();
    }

    @Test
    @DisplayName("S-RV-1: a workflow whose ship step failed resumes in place: same run, charge not repeated, ship"
            + " again with its step id, and a fresh attempt budget")
    void failedWorkflowResumesInPlaceWithItsStepIds() {
        SHIP_FAILURES.set(2);
        UUID runId = runlane.template()
                .trigger("resume.checkout", new Checkout.Payload("o-1"))
                .runId();
        runlane.startWorker();
        Run failed = awaitStatus(runId, RunStatus.FAILED);
        assertThat(failed.spentAttempts()).isEqualTo(2);
        // One more failure after the resume: only a fresh budget of two attempts lets the run succeed.
        SHIP_FAILURES.set(1);

        Run resumed = runlane.template().runs().resume(runId);

        assertThat(resumed.id()).isEqualTo(runId);
        assertThat(resumed.status()).isIn(RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.RETRYING);
        assertThat(resumed.failure()).isNull();
        Run succeeded = awaitStatus(runId, RunStatus.SUCCEEDED);
        assertThat(calls(runId, "charge")).isEqualTo(1);
        assertThat(calls(runId, "ship")).isEqualTo(4);
        assertThat(SHIP_STEP_IDS.get(runId))
                .hasSize(4)
                .containsOnly(SHIP_STEP_IDS.get(runId).get(0));
        assertThat(succeeded.spentAttempts()).isEqualTo(2);
        assertThat(events(runId))
                .filteredOn(event -> event.type() == RunEventType.RESUMED)
                .singleElement()
                .satisfies(event -> {
                    assertThat(event.status()).isEqualTo(RunStatus.QUEUED);
                    assertThat(event.actor()).isEqualTo("operator");
                    assertThat(event.detail()).isEqualTo("resumed after FAILED");
                });
    }

    @Test
    @DisplayName("S-RV-1: a cancelled run resumes in place and runs")
    void cancelledRunResumes() {
        Run run = mail(TriggerOptions.none());
        runlane.template().runs().cancel(run.id(), "not now");

        Run resumed = runlane.template().runs().resume(run.id());

        assertThat(resumed.id()).isEqualTo(run.id());
        assertThat(resumed.status()).isEqualTo(RunStatus.QUEUED);
        assertThat(resumed.finishedAt()).isNull();
        runlane.startWorker();
        awaitStatus(run.id(), RunStatus.SUCCEEDED);
        assertThat(runlane.template()
                        .runs()
                        .list(io.runlane.RunQuery.builder().build())
                        .items())
                .hasSize(1);
    }

    @Test
    @DisplayName("S-RV-2: an active, a SUCCEEDED or an unknown run is not resumed, and nothing is written")
    void onlyFailedAndCancelledRunsResume() {
        Run queued = mail(TriggerOptions.none());
        Run succeeded = runlane.finish(mail(TriggerOptions.none()).id(), RunStatus.SUCCEEDED);
        int queuedEvents = events(queued.id()).size();
        int succeededEvents = events(succeeded.id()).size();

        assertThatThrownBy(() -> runlane.template().runs().resume(queued.id()))
                .isInstanceOfSatisfying(
                        RunStateException.class,
                        ex -> assertThat(ex.getMessage()).contains("S-RV-1"));
        assertThatThrownBy(() -> runlane.template().runs().resume(succeeded.id()))
                .isInstanceOf(RunStateException.class);
        assertThatThrownBy(() -> runlane.template().runs().resume(UUID.randomUUID()))
                .isInstanceOf(RunNotFoundException.class);
        assertThatThrownBy(() -> runlane.template().runs().resume(null)).isInstanceOf(NullPointerException.class);

        assertThat(runlane.run(queued.id()).status()).isEqualTo(RunStatus.QUEUED);
        assertThat(runlane.run(succeeded.id()).status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(events(queued.id())).hasSize(queuedEvents);
        assertThat(events(succeeded.id())).hasSize(succeededEvents);
    }

    @Test
    @DisplayName("S-RV-2, S-IK-4: a failed run whose idempotency key another run took since is not resumed; the"
            + " exception names the owner and nothing is written")
    void idempotencyKeyTakenSinceRefusesTheResume() {
        Run failed = runlane.finish(
                mail(TriggerOptions.builder().idempotencyKey("k").build()).id(), RunStatus.FAILED);
        TriggerResult owner = runlane.template()
                .trigger(
                        "mail.send",
                        new SendMail.Payload("a@example.com"),
                        TriggerOptions.builder().idempotencyKey("k").build());
        assertThat(owner.outcome()).isEqualTo(TriggerOutcome.CREATED);
        int events = events(failed.id()).size();

        assertThatThrownBy(() -> runlane.template().runs().resume(failed.id()))
                .isInstanceOfSatisfying(
                        IdempotencyKeyActiveException.class,
                        ex -> assertThat(ex.ownerRunId()).isEqualTo(owner.runId()));

        assertThat(runlane.run(failed.id()).status()).isEqualTo(RunStatus.FAILED);
        assertThat(events(failed.id())).hasSize(events);
    }

    @Test
    @DisplayName("S-RV-2: a resumed run re-takes its idempotency key: a duplicate trigger then returns it")
    void resumedRunOwnsItsIdempotencyKeyAgain() {
        Run failed = runlane.finish(
                mail(TriggerOptions.builder().idempotencyKey("k").build()).id(), RunStatus.FAILED);

        runlane.template().runs().resume(failed.id());
        TriggerResult duplicate = runlane.template()
                .trigger(
                        "mail.send",
                        new SendMail.Payload("a@example.com"),
                        TriggerOptions.builder().idempotencyKey("k").build());

        assertThat(duplicate.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
        assertThat(duplicate.runId()).isEqualTo(failed.id());
    }

    @Test
    @DisplayName("S-RV-2, S-IK-10: a holder of the key whose retention has passed does not stop the resume")
    void expiredHolderOfTheKeyGivesItUp() {
        Run failed = runlane.finish(
                mail(TriggerOptions.builder().idempotencyKey("k").build()).id(), RunStatus.FAILED);
        Run retained = runlane.finish(
                runlane.template()
                        .trigger(
                                "mail.send",
                                new SendMail.Payload("a@example.com"),
                                TriggerOptions.builder()
                                        .idempotencyKey("k")
                                        .idempotencyKeyTtl(IdempotencyKeyTtl.of(Duration.ofHours(1)))
                                        .build())
                        .runId(),
                RunStatus.SUCCEEDED);
        runlane.age(retained.id(), Duration.ofHours(2));

        Run resumed = runlane.template().runs().resume(failed.id());

        assertThat(resumed.status()).isEqualTo(RunStatus.QUEUED);
        assertThat(runlane.template().runs().findCurrent("mail.send", "k"))
                .map(Run::id)
                .contains(failed.id());
    }

    @Test
    @DisplayName("S-RV-2, S-SK-2: a failed run whose singleton key another active run holds is not resumed")
    void heldSingletonKeyRefusesTheResume() {
        Run failed = runlane.finish(
                mail(TriggerOptions.builder().singletonKey("s").build()).id(), RunStatus.FAILED);
        Run holder = mail(TriggerOptions.builder().singletonKey("s").build());
        int events = events(failed.id()).size();

        assertThatThrownBy(() -> runlane.template().runs().resume(failed.id()))
                .isInstanceOfSatisfying(
                        SingletonConflictException.class,
                        ex -> assertThat(ex.ownerRunId()).isEqualTo(holder.id()));

        assertThat(runlane.run(failed.id()).status()).isEqualTo(RunStatus.FAILED);
        assertThat(events(failed.id())).hasSize(events);
    }

    @RepeatedTest(5)
    @DisplayName("S-RV-2: concurrent resumes of one run resume it once")
    void concurrentResumesResumeOnce() {
        Run failed = runlane.finish(mail(TriggerOptions.none()).id(), RunStatus.FAILED);
        AtomicInteger resumed = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();

        Concurrently.run(8, thread -> () -> {
            try {
                runlane.template().runs().resume(failed.id());
                resumed.incrementAndGet();
            } catch (RunStateException ex) {
                refused.incrementAndGet();
            }
            return null;
        });

        assertThat(resumed).hasValue(1);
        assertThat(refused).hasValue(7);
        assertThat(events(failed.id()))
                .filteredOn(event -> event.type() == RunEventType.RESUMED)
                .hasSize(1);
    }

    @RepeatedTest(10)
    @DisplayName("S-RV-2, S-IK-1: a resume racing a trigger of the same idempotency key leaves one owner of the key")
    void resumeRacingATriggerOfItsKeyLeavesOneOwner() {
        String key = "race-" + UUID.randomUUID();
        Run failed = runlane.finish(
                mail(TriggerOptions.builder().idempotencyKey(key).build()).id(), RunStatus.FAILED);
        List<UUID> answers = new CopyOnWriteArrayList<>();
        AtomicInteger refusedResumes = new AtomicInteger();

        Concurrently.run(2, thread -> () -> {
            if (thread == 0) {
                try {
                    answers.add(runlane.template().runs().resume(failed.id()).id());
                } catch (IdempotencyKeyActiveException ex) {
                    refusedResumes.incrementAndGet();
                }
            } else {
                answers.add(runlane.template()
                        .trigger(
                                "mail.send",
                                new SendMail.Payload("a@example.com"),
                                TriggerOptions.builder().idempotencyKey(key).build())
                        .runId());
            }
            return null;
        });

        Long active = runlane.jdbc()
                .queryForObject(
                        "SELECT count(*) FROM " + runlane.schema() + ".runs WHERE idempotency_key = ?"
                                + " AND finished_at IS NULL",
                        Long.class,
                        key);
        assertThat(active).isEqualTo(1);
        assertThat(answers).hasSize(2 - refusedResumes.get());
        assertThat(answers.stream().distinct()).hasSize(1);
    }
}
