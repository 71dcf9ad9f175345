package io.runlane.autoconfigure.console;

import io.runlane.BulkResult;
import io.runlane.Run;
import io.runlane.RunQuery;
import io.runlane.RunSource;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The console's recovery actions beyond a single resume (S-RV-5): fork a finished run from one of its recorded steps
 * (S-RV-3), and resume or cancel every run of a filtered list (S-RV-4), each through {@link RunlaneTemplate}'s operator
 * API and behind {@link ConsoleActions#guard()} like every console write.
 */
final class ConsoleRecovery {

    /** The {@code maxRuns} of a bulk request that names none: the most runs the console's page acts on at once. */
    static final int DEFAULT_MAX_RUNS = 1_000;

    private final RunlaneTemplate runlane;

    private final ConsoleReads reads;

    ConsoleRecovery(RunlaneTemplate runlane, ConsoleReads reads) {
        this.runlane = runlane;
        this.reads = reads;
    }

    /**
     * {@code POST api/runs/{runId}/fork} with {@code {"fromStep": "name"}} (or {@code null}, or no field: replay every
     * recorded step); answers the new run with its history.
     */
    ServerResponse fork(ServerRequest request) throws Exception {
        UUID runId = ConsoleResponses.runId(request.pathVariable("runId"));
        ForkBody body = body(request, ForkBody.class);
        String fromStep = body.fromStep();
        if (fromStep != null && fromStep.isBlank()) {
            throw new ConsoleRequestException("fromStep must name a recorded step, or be null to replay every step");
        }
        Run fork = runlane.runs().fork(runId, fromStep);
        return ConsoleResponses.json(reads.detail(fork, request));
    }

    /** {@code POST api/runs/resume-all} with a {@link BulkBody}; answers the {@link BulkResult}. */
    ServerResponse resumeAll(ServerRequest request) throws Exception {
        BulkBody body = body(request, BulkBody.class);
        return ConsoleResponses.json(runlane.runs().resumeAll(body.query(), body.maxRunsOrDefault()));
    }

    /** {@code POST api/runs/cancel-all} with a {@link BulkBody}; answers the {@link BulkResult}. */
    ServerResponse cancelAll(ServerRequest request) throws Exception {
        BulkBody body = body(request, BulkBody.class);
        return ConsoleResponses.json(runlane.runs().cancelAll(body.query(), body.maxRunsOrDefault()));
    }

    private static <T> T body(ServerRequest request, Class<T> type) throws Exception {
        try {
            return request.body(type);
        } catch (HttpMessageNotReadableException ex) {
            throw new ConsoleRequestException("The body is not a JSON object of the expected fields");
        }
    }

    /** The body of a fork: the first step to run again, or {@code null} to replay every recorded step. */
    record ForkBody(@Nullable String fromStep) {}

    /**
     * The body of a bulk resume or cancel: the filters of {@code GET api/runs} as a {@link RunQuery} (statuses by name,
     * instants in ISO-8601; an absent filter selects everything) and the most runs to act on ({@value
     * #DEFAULT_MAX_RUNS} when absent; the engine accepts 1..{@value BulkResult#MAX_RUNS}).
     */
    record BulkBody(
            @Nullable List<String> statuses,
            @Nullable List<String> taskIds,
            @Nullable List<String> queues,
            @Nullable String idempotencyKey,
            @Nullable String singletonKey,
            @Nullable String createdFrom,
            @Nullable String createdTo,
            @Nullable Integer maxRuns,
            @Nullable List<String> sources,
            @Nullable String scheduleId,
            @Nullable Integer minPriority,
            @Nullable Integer maxPriority,
            @Nullable String failureMessagePrefix,
            @Nullable String idempotencyKeyPrefix,
            @Nullable String singletonKeyPrefix) {

        RunQuery query() {
            RunQuery.Builder query = RunQuery.builder()
                    .statuses(statuses(statuses))
                    .taskIds(names(taskIds))
                    .queues(names(queues))
                    .idempotencyKey(blankToNull(idempotencyKey))
                    .singletonKey(blankToNull(singletonKey))
                    .createdBetween(instant("createdFrom", createdFrom), instant("createdTo", createdTo))
                    .sources(sources(sources))
                    .scheduleId(blankToNull(scheduleId))
                    // A blank prefix is refused (S-OP-15), not dropped: dropping it would act on more runs.
                    .failureMessagePrefix(emptyToNull(failureMessagePrefix))
                    .idempotencyKeyPrefix(emptyToNull(idempotencyKeyPrefix))
                    .singletonKeyPrefix(emptyToNull(singletonKeyPrefix));
            if (minPriority != null) {
                query.minPriority(minPriority);
            }
            if (maxPriority != null) {
                query.maxPriority(maxPriority);
            }
            return query.build();
        }

        private static @Nullable String emptyToNull(@Nullable String value) {
            return (value == null || value.isEmpty()) ? null : value;
        }

        int maxRunsOrDefault() {
            return (maxRuns == null) ? DEFAULT_MAX_RUNS : maxRuns;
        }

        private static Set<RunStatus> statuses(@Nullable List<String> values) {
            Set<RunStatus> statuses = EnumSet.noneOf(RunStatus.class);
            for (String value : (values == null) ? List.<String>of() : values) {
                try {
                    statuses.add(RunStatus.valueOf(String.valueOf(value).trim().toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException ex) {
                    throw new ConsoleRequestException("statuses: '" + value + "' is not a run status");
                }
            }
            return statuses;
        }

        private static Set<RunSource> sources(@Nullable List<String> values) {
            Set<RunSource> sources = EnumSet.noneOf(RunSource.class);
            for (String value : (values == null) ? List.<String>of() : values) {
                try {
                    sources.add(RunSource.valueOf(String.valueOf(value).trim().toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException ex) {
                    throw new ConsoleRequestException("sources: '" + value + "' is not a run source");
                }
            }
            return sources;
        }

        private static String[] names(@Nullable List<String> values) {
            if (values == null) {
                return new String[0];
            }
            return values.stream()
                    .map(value -> (value == null) ? "" : value.trim())
                    .filter(value -> !value.isEmpty())
                    .toArray(String[]::new);
        }

        private static @Nullable String blankToNull(@Nullable String value) {
            return (value == null || value.isBlank()) ? null : value;
        }

        private static @Nullable Instant instant(String name, @Nullable String value) {
            if (value == null || value.isBlank()) {
                return null;
            }
            try {
                return Instant.parse(value);
            } catch (DateTimeParseException ex) {
                throw new ConsoleRequestException(name + " '" + value + "' is not an ISO-8601 instant");
            }
        }
    }
}
