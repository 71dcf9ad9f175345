package io.runlane.autoconfigure.console;

import io.runlane.Page;
import io.runlane.Run;
import io.runlane.RunQuery;
import io.runlane.RunSource;
import io.runlane.RunStatus;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The console's read requests: {@code GET api/console}, {@code api/overview}, {@code api/runs} (filters and cursor
 * paging of {@link io.runlane.RunOperations#list}), {@code api/runs/{id}} (the run with the newest page of each list
 * of its history) and {@code api/runs/{id}/events|attempts|steps|signals} (older pages, S-CO-10); {@link
 * ConsoleSchedules} answers {@code api/schedules}.
 */
final class ConsoleApi {

    private final ConsoleReads reads;

    ConsoleApi(ConsoleReads reads) {
        this.reads = reads;
    }

    ServerResponse info(ServerRequest request) {
        return ConsoleResponses.json(reads.info());
    }

    ServerResponse overview(ServerRequest request) {
        return ConsoleResponses.json(reads.overview());
    }

    /**
     * One page of runs, newest first. Parameters: {@code status}, {@code task}, {@code queue} (comma-separated or
     * repeated), {@code source} (comma-separated or repeated {@link RunSource} names, any case, S-CO-23), {@code
     * schedule} (a schedule id), {@code createdFrom}, {@code createdTo} (ISO-8601 instants), {@code idempotencyKey},
     * {@code singletonKey}, {@code minPriority}, {@code maxPriority} (inclusive), {@code failureMessagePrefix}, {@code
     * idempotencyKeyPrefix}, {@code singletonKeyPrefix} (S-CO-27), {@code limit} and {@code cursor}.
     */
    ServerResponse runs(ServerRequest request) {
        RunQuery.Builder query = RunQuery.builder()
                .statuses(statuses(values(request, "status")))
                .taskIds(values(request, "task").toArray(String[]::new))
                .queues(values(request, "queue").toArray(String[]::new))
                .idempotencyKey(text(request, "idempotencyKey"))
                .singletonKey(text(request, "singletonKey"))
                .sources(sources(values(request, "source")))
                .scheduleId(text(request, "schedule"))
                .failureMessagePrefix(text(request, "failureMessagePrefix"))
                .idempotencyKeyPrefix(text(request, "idempotencyKeyPrefix"))
                .singletonKeyPrefix(text(request, "singletonKeyPrefix"))
                .createdBetween(instant(request, "createdFrom"), instant(request, "createdTo"))
                .limit(limit(request))
                .cursor(text(request, "cursor"));
        String minPriority = text(request, "minPriority");
        if (minPriority != null) {
            query.minPriority(number("minPriority", minPriority));
        }
        String maxPriority = text(request, "maxPriority");
        if (maxPriority != null) {
            query.maxPriority(number("maxPriority", maxPriority));
        }
        Page<Run> page = reads.runs(query.build());
        boolean shown = reads.valuesShown(request);
        return ConsoleResponses.json(new RunsPage(
                page.items().stream().map(run -> ConsoleValues.run(run, shown)).toList(), page.nextCursor()));
    }

    ServerResponse run(ServerRequest request) {
        UUID runId = ConsoleResponses.runId(request.pathVariable("runId"));
        return reads.run(runId)
                .map(run -> ConsoleResponses.json(reads.detail(run, request)))
                .orElseGet(() -> ConsoleResponses.notFound("run_not_found", "No run " + runId));
    }

    /** {@code GET api/runs/{id}/attempts?cursor=&limit=}: attempts older than the cursor, newest first. */
    ServerResponse attempts(ServerRequest request) {
        UUID runId = ConsoleResponses.runId(request.pathVariable("runId"));
        return page(runId, reads.attempts(runId, text(request, "cursor"), historyLimit(request)));
    }

    /** {@code GET api/runs/{id}/events?cursor=&limit=}: events older than the cursor, newest first. */
    ServerResponse events(ServerRequest request) {
        UUID runId = ConsoleResponses.runId(request.pathVariable("runId"));
        return page(runId, reads.events(runId, text(request, "cursor"), historyLimit(request)));
    }

    /** {@code GET api/runs/{id}/steps?cursor=&limit=}: steps completed before the cursor's, latest first. */
    ServerResponse steps(ServerRequest request) {
        UUID runId = ConsoleResponses.runId(request.pathVariable("runId"));
        boolean shown = reads.valuesShown(request);
        return page(
                runId,
                reads.steps(runId, text(request, "cursor"), historyLimit(request))
                        .map(page -> ConsoleValues.page(page, step -> ConsoleValues.step(step, shown))));
    }

    /** {@code GET api/runs/{id}/signals?cursor=&limit=}: signals sent before the cursor's, newest first. */
    ServerResponse signals(ServerRequest request) {
        UUID runId = ConsoleResponses.runId(request.pathVariable("runId"));
        boolean shown = reads.valuesShown(request);
        return page(
                runId,
                reads.signals(runId, text(request, "cursor"), historyLimit(request))
                        .map(page -> ConsoleValues.page(page, signal -> ConsoleValues.signal(signal, shown))));
    }

    private static ServerResponse page(UUID runId, Optional<? extends Page<?>> page) {
        return page.<ServerResponse>map(ConsoleResponses::json)
                .orElseGet(() -> ConsoleResponses.notFound("run_not_found", "No run " + runId));
    }

    /** The page size of a history list, clamped to 1..{@value ConsoleHistory#MAX_LIMIT}. */
    private static int historyLimit(ServerRequest request) {
        String value = text(request, "limit");
        return ConsoleHistory.clamp((value == null) ? null : number("limit", value));
    }

    private static List<String> values(ServerRequest request, String name) {
        return request.params().getOrDefault(name, List.of()).stream()
                .flatMap(value -> Arrays.stream(value.split(",")))
                .map(String::trim)
                .filter(value -> !value.isEmpty())
                .toList();
    }

    private static @Nullable String text(ServerRequest request, String name) {
        return request.param(name).filter(value -> !value.isEmpty()).orElse(null);
    }

    private static Set<RunStatus> statuses(List<String> values) {
        Set<RunStatus> statuses = EnumSet.noneOf(RunStatus.class);
        for (String value : values) {
            try {
                statuses.add(RunStatus.valueOf(value.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException ex) {
                throw new ConsoleRequestException("status '" + value + "' is not a run status");
            }
        }
        return statuses;
    }

    private static Set<RunSource> sources(List<String> values) {
        Set<RunSource> sources = EnumSet.noneOf(RunSource.class);
        for (String value : values) {
            try {
                sources.add(RunSource.valueOf(value.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException ex) {
                throw new ConsoleRequestException("source '" + value + "' is not a run source");
            }
        }
        return sources;
    }

    private static @Nullable Instant instant(ServerRequest request, String name) {
        String value = text(request, name);
        if (value == null) {
            return null;
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException ex) {
            throw new ConsoleRequestException(name + " '" + value + "' is not an ISO-8601 instant");
        }
    }

    private static int limit(ServerRequest request) {
        String value = text(request, "limit");
        return (value == null) ? RunQuery.DEFAULT_LIMIT : number("limit", value);
    }

    private static int number(String name, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException ex) {
            throw new ConsoleRequestException(name + " '" + value + "' is not a number");
        }
    }

    /** A page of runs; {@code nextCursor} is {@code null} on the last page. */
    record RunsPage(List<Run> runs, @Nullable String nextCursor) {}
}
