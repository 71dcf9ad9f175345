package io.runlane.autoconfigure.console;

import io.runlane.RunlaneException;
import java.util.UUID;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.ServerResponse;

/** The console API's JSON answers and its error bodies ({@code {"code": …, "message": …}}). */
final class ConsoleResponses {

    private ConsoleResponses() {}

    static ServerResponse json(Object body) {
        return ServerResponse.ok()
                .contentType(MediaType.APPLICATION_JSON)
                .cacheControl(CacheControl.noStore())
                .body(body);
    }

    static ServerResponse notFound(String code, String message) {
        return error(HttpStatus.NOT_FOUND, code, message);
    }

    static ServerResponse error(HttpStatus status, String code, String message) {
        return ServerResponse.status(status)
                .contentType(MediaType.APPLICATION_JSON)
                .cacheControl(CacheControl.noStore())
                .body(new Failure(code, message));
    }

    /** Unknown runs, tasks, schedules and steps answer 404, input Runlane rejects 400, a state that forbids the action 409. */
    static ServerResponse refused(RunlaneException ex) {
        HttpStatus status = switch (ex.code()) {
            case "run_not_found", "task_not_found", "schedule_not_found", "step_not_found" -> HttpStatus.NOT_FOUND;
            case "invalid_key", "configuration_invalid", "payload_invalid", "key_resolver_failed" ->
                HttpStatus.BAD_REQUEST;
            default -> HttpStatus.CONFLICT;
        };
        return error(status, ex.code(), String.valueOf(ex.getMessage()));
    }

    static ServerResponse badRequest(ConsoleRequestException ex) {
        return error(HttpStatus.BAD_REQUEST, "request_invalid", String.valueOf(ex.getMessage()));
    }

    static UUID runId(String value) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException ex) {
            throw new ConsoleRequestException("'" + value + "' is not a run id");
        }
    }

    /** Why a request was refused. */
    record Failure(String code, String message) {}
}
