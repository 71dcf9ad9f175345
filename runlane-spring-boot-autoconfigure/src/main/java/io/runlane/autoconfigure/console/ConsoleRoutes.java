package io.runlane.autoconfigure.console;

import io.runlane.RunlaneException;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The console's routes under its path {@code P}: {@code P} redirects to {@code P/}, the page; {@code P/api/…} is the
 * JSON API ({@code P/api/runs/{id}/live} an event stream, {@link ConsoleLiveRuns}), its {@code POST}s ({@link ConsoleActions}, {@link ConsoleRecovery}, {@link ConsoleSchedules}) behind {@link
 * ConsoleActions#guard()}; everything else under {@code P/} is a static
 * resource of {@value ConsolePage#LOCATION}.
 */
final class ConsoleRoutes {

    private final ConsoleSettings settings;

    private final ConsoleApi api;

    private final ConsoleActions actions;

    private final ConsoleRecovery recovery;

    private final ConsoleSchedules schedules;

    private final ConsolePage page;

    private final ConsoleTasks tasks;

    private final ConsoleLiveRuns live;

    ConsoleRoutes(
            ConsoleSettings settings,
            ConsoleApi api,
            ConsoleActions actions,
            ConsoleRecovery recovery,
            ConsoleSchedules schedules,
            ConsolePage page,
            ConsoleTasks tasks,
            ConsoleLiveRuns live) {
        this.settings = settings;
        this.api = api;
        this.actions = actions;
        this.recovery = recovery;
        this.schedules = schedules;
        this.page = page;
        this.tasks = tasks;
        this.live = live;
    }

    RouterFunction<ServerResponse> routes() {
        String path = settings.path();
        String lastSegment = path.substring(path.lastIndexOf('/') + 1);
        RouterFunction<ServerResponse> reads = RouterFunctions.route()
                .GET(path + "/api/console", api::info)
                .GET(path + "/api/overview", api::overview)
                .GET(path + "/api/runs", api::runs)
                .GET(path + "/api/runs/{runId}", api::run)
                .GET(path + "/api/runs/{runId}/attempts", api::attempts)
                .GET(path + "/api/runs/{runId}/events", api::events)
                .GET(path + "/api/runs/{runId}/steps", api::steps)
                .GET(path + "/api/runs/{runId}/signals", api::signals)
                .GET(path + "/api/runs/{runId}/live", live::stream)
                .GET(path + "/api/schedules", schedules::list)
                .GET(path + "/api/tasks", tasks::tasks)
                .GET(path + "/api/charts", tasks::charts)
                .build();
        RouterFunction<ServerResponse> writes = RouterFunctions.route()
                .POST(path + "/api/runs/resume-all", recovery::resumeAll)
                .POST(path + "/api/runs/cancel-all", recovery::cancelAll)
                .POST(path + "/api/runs/{runId}/fork", recovery::fork)
                .POST(path + "/api/runs/{runId}/{action}", actions::runAction)
                .POST(path + "/api/idempotency-keys/reset", actions::resetKey)
                .POST(path + "/api/tasks/{taskId}/trigger", actions::trigger)
                .POST(path + "/api/schedules/{scheduleId}/{action}", schedules::act)
                .filter(actions.guard())
                .build();
        return RouterFunctions.route()
                .GET(
                        path,
                        request -> ServerResponse.status(HttpStatus.FOUND)
                                .header("Location", lastSegment + "/")
                                .build())
                .GET(path + "/", page::index)
                .GET(path + "/index.html", page::index)
                .add(reads)
                .add(writes)
                .resources(
                        path + "/**",
                        new ClassPathResource(ConsolePage.LOCATION),
                        (resource, headers) -> headers.setCacheControl(CacheControl.noCache()))
                .onError(RunlaneException.class, (ex, request) -> ConsoleResponses.refused((RunlaneException) ex))
                .onError(
                        ConsoleRequestException.class,
                        (ex, request) -> ConsoleResponses.badRequest((ConsoleRequestException) ex))
                .build();
    }
}
