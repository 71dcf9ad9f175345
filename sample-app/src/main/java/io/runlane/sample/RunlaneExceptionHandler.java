package io.runlane.sample;

import io.runlane.RunAwaitTimeoutException;
import io.runlane.RunCancelledException;
import io.runlane.RunFailedException;
import io.runlane.RunlaneException;
import io.runlane.SingletonConflictException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** Turns Runlane's exceptions into RFC 9457 problem details that carry the stable error code. */
@RestControllerAdvice
class RunlaneExceptionHandler {

    /** Another run of the same resource is active; the client can follow {@code ownerRunId}. */
    @ExceptionHandler
    ProblemDetail singletonConflict(SingletonConflictException ex) {
        ProblemDetail problem = problem(HttpStatus.CONFLICT, ex);
        problem.setProperty("ownerRunId", ex.ownerRunId());
        return problem;
    }

    /** The awaited run is still running: ask again later. */
    @ExceptionHandler
    ProblemDetail awaitTimeout(RunAwaitTimeoutException ex) {
        return problem(HttpStatus.GATEWAY_TIMEOUT, ex);
    }

    /** The awaited run failed or was cancelled: it has no result. */
    @ExceptionHandler({RunFailedException.class, RunCancelledException.class})
    ProblemDetail runEndedWithoutResult(RunlaneException ex) {
        return problem(HttpStatus.CONFLICT, ex);
    }

    /** Invalid keys, invalid payloads and unknown tasks: the request cannot be triggered as it is. */
    @ExceptionHandler
    ProblemDetail runlaneException(RunlaneException ex) {
        return problem(HttpStatus.BAD_REQUEST, ex);
    }

    private static ProblemDetail problem(HttpStatus status, RunlaneException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, ex.getMessage());
        problem.setProperty("code", ex.code());
        return problem;
    }
}
