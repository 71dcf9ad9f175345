package io.runlane.autoconfigure.web;

import io.runlane.ConfigurationInvalidException;
import io.runlane.IdempotencyKeyActiveException;
import io.runlane.InvalidKeyException;
import io.runlane.KeyResolverException;
import io.runlane.PayloadValidationException;
import io.runlane.RateLimitExceededException;
import io.runlane.RunNotFoundException;
import io.runlane.RunStateException;
import io.runlane.RunlaneException;
import io.runlane.SingletonConflictException;
import io.runlane.StepNotFoundException;
import io.runlane.TaskNotFoundException;
import java.time.Duration;
import java.time.Instant;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers Runlane's exceptions that a caller can act on with RFC 9457 problem details carrying the stable error
 * {@code code}: 400 for bad input, 404 for an unknown run, task or step (of a fork, S-RV-3), 409 for conflicts (with the owner run's id where
 * there is one), 429 for a rate limit's refusal (S-RT-2) with a {@code Retry-After} header. Other failures are left to the application's error handling.
 */
@RestControllerAdvice
public class RunlaneProblemDetailsExceptionHandler {

    /** Invalid keys, payloads, options or key resolvers: the request cannot be triggered as it is. */
    @ExceptionHandler({
        ConfigurationInvalidException.class,
        InvalidKeyException.class,
        PayloadValidationException.class,
        KeyResolverException.class
    })
    public ProblemDetail badInput(RunlaneException ex) {
        return problem(HttpStatus.BAD_REQUEST, ex);
    }

    @ExceptionHandler({RunNotFoundException.class, TaskNotFoundException.class, StepNotFoundException.class})
    public ProblemDetail notFound(RunlaneException ex) {
        return problem(HttpStatus.NOT_FOUND, ex);
    }

    /** Another run of the same singleton key is active; the client can follow {@code ownerRunId}. */
    @ExceptionHandler
    public ProblemDetail singletonConflict(SingletonConflictException ex) {
        ProblemDetail problem = problem(HttpStatus.CONFLICT, ex);
        problem.setProperty("ownerRunId", ex.ownerRunId());
        return problem;
    }

    /** The key's owner is still active, so it cannot be reset; the client can follow {@code ownerRunId}. */
    @ExceptionHandler
    public ProblemDetail idempotencyKeyActive(IdempotencyKeyActiveException ex) {
        ProblemDetail problem = problem(HttpStatus.CONFLICT, ex);
        problem.setProperty("ownerRunId", ex.ownerRunId());
        return problem;
    }

    /** The run is not in a status that allows the operation (S-OP-7). */
    @ExceptionHandler
    public ProblemDetail runState(RunStateException ex) {
        ProblemDetail problem = problem(HttpStatus.CONFLICT, ex);
        problem.setProperty("runId", ex.runId());
        problem.setProperty("status", ex.status());
        return problem;
    }

    /**
     * The task's rate limit refused the trigger (S-RT-2): 429 with {@code Retry-After} in whole seconds, rounded up,
     * until {@code retryAfter} (also a property, as an instant), and the task and key.
     */
    @ExceptionHandler
    public ResponseEntity<ProblemDetail> rateLimited(RateLimitExceededException ex) {
        ProblemDetail problem = problem(HttpStatus.TOO_MANY_REQUESTS, ex);
        problem.setProperty("taskId", ex.taskId());
        problem.setProperty("rateLimitKey", ex.rateLimitKey());
        problem.setProperty("retryAfter", ex.retryAfter().toString());
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds(ex.retryAfter(), Instant.now())))
                .body(problem);
    }

    /** Whole seconds from {@code now} until {@code retryAfter}, rounded up; 0 once it has passed. */
    public static long retryAfterSeconds(Instant retryAfter, Instant now) {
        Duration wait = Duration.between(now, retryAfter);
        if (wait.isNegative() || wait.isZero()) {
            return 0;
        }
        return wait.getSeconds() + (wait.getNano() > 0 ? 1 : 0);
    }

    private static ProblemDetail problem(HttpStatus status, RunlaneException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, ex.getMessage());
        problem.setProperty("code", ex.code());
        return problem;
    }
}
