package io.runlane.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.Run;
import io.runlane.RunContext;
import io.runlane.RunStatus;
import io.runlane.Task;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.ExecutionSettings;
import io.runlane.testsupport.FreshSchema;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestRunlane;
import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What happens around the handler: interrupt flags and failures before the handler is called (S-EX-22). */
@RunlaneDatabaseTest
class AttemptPreparationIntegrationTests {

    /** Interrupts its own thread and fails, as a handler cut short by an interrupt would. */
    @Task(id = "prep.interrupted", maxAttempts = 1)
    public static class Interrupted implements TaskHandler<Interrupted.Payload> {

        public record Payload(int n) {}

        static final Map<String, String> THREADS = new ConcurrentHashMap<>();

        @Override
        public void run(Payload payload, RunContext context) {
            THREADS.put("interrupted", Thread.currentThread().getName());
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting");
        }
    }

    /** Remembers its thread and whether it started interrupted. */
    @Task(id = "prep.observer")
    public static class Observer implements TaskHandler<Observer.Payload> {

        public record Payload(int n) {}

        static volatile Boolean startedInterrupted;

        @Override
        public void run(Payload payload, RunContext context) {
            Interrupted.THREADS.put("observer", Thread.currentThread().getName());
            startedInterrupted = Thread.currentThread().isInterrupted();
        }
    }

    /** A constraint whose validator breaks (throws) while {@link #broken} is set. */
    @Target(ElementType.FIELD)
    @Retention(RetentionPolicy.RUNTIME)
    @Constraint(validatedBy = BreakingValidator.class)
    public @interface Checked {

        String message() default "not checked";

        Class<?>[] groups() default {};

        Class<? extends Payload>[] payload() default {};
    }

    public static class BreakingValidator implements ConstraintValidator<Checked, String> {

        static volatile boolean broken;

        @Override
        public boolean isValid(String value, ConstraintValidatorContext context) {
            if (broken) {
                throw new IllegalStateException("the validator's reference data is unavailable");
            }
            return true;
        }
    }

    @Task(id = "prep.validated")
    public static class Validated implements TaskHandler<Validated.Payload> {

        public record Payload(@Checked String code) {}

        static final AtomicInteger RAN = new AtomicInteger();

        @Override
        public void run(Payload payload, RunContext context) {
            RAN.incrementAndGet();
        }
    }

    @Pool(size = 6)
    private HikariDataSource dataSource;

    private TestRunlane runlane;

    @BeforeEach
    void start(@FreshSchema("prep") String schema) {
        Interrupted.THREADS.clear();
        Observer.startedInterrupted = null;
        BreakingValidator.broken = false;
        Validated.RAN.set(0);
        runlane = TestRunlane.withExecution(
                dataSource,
                schema,
                UnaryOperator.identity(),
                ExecutionSettings.defaults().withWorker(1, Duration.ofMillis(50)),
                EngineListener.NONE,
                new Interrupted(),
                new Observer(),
                new Validated());
    }

    @AfterEach
    void stop() {
        BreakingValidator.broken = false;
        runlane.stop();
    }

    @Test
    @DisplayName("Finding 10, S-EX-22: a handler's interrupt does not reach the next attempt on the same thread")
    void nextAttemptOnTheSameThreadStartsUninterrupted() {
        UUID interrupted = runlane.template()
                .trigger("prep.interrupted", new Interrupted.Payload(1))
                .runId();
        UUID observer = runlane.template()
                .trigger("prep.observer", new Observer.Payload(1))
                .runId();
        runlane.startWorker();

        await().atMost(Duration.ofSeconds(10)).until(() -> runlane.run(observer).status() == RunStatus.SUCCEEDED);
        assertThat(runlane.run(interrupted).status()).isEqualTo(RunStatus.FAILED);
        assertThat(Interrupted.THREADS.get("observer"))
                .as("the next run was claimed with the failure and ran on the same pooled thread")
                .isEqualTo(Interrupted.THREADS.get("interrupted"));
        assertThat(Observer.startedInterrupted)
                .as("interrupt flag at the start of the next attempt")
                .isFalse();
    }

    @Test
    @DisplayName("Finding 10, S-EX-22: a validator that throws fails the run at once with attempt_preparation_failed,"
            + " not after the lease")
    void brokenValidatorFailsTheRunAtOnce() {
        UUID runId = runlane.template()
                .trigger("prep.validated", new Validated.Payload("A-1"))
                .runId();
        BreakingValidator.broken = true;
        runlane.startWorker();

        // The lease is 60 s: only a failure recorded by the worker itself ends the run this soon.
        Run failed = await().atMost(Duration.ofSeconds(10))
                .until(() -> runlane.run(runId), run -> run.status() == RunStatus.FAILED);
        assertThat(failed.failure().code()).isEqualTo("attempt_preparation_failed");
        assertThat(failed.failure().message()).contains("ValidationException");
        assertThat(failed.attempts()).isEqualTo(1);
        assertThat(Validated.RAN).as("the handler was not called").hasValue(0);
    }
}
