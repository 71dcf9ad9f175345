package io.runlane.autoconfigure.console;

import io.runlane.RunStatus;
import io.runlane.ScheduleInfo;
import io.runlane.TaskKeys;
import io.runlane.TaskNotFoundException;
import io.runlane.internal.engine.RunlaneEngine;
import io.runlane.internal.query.TaskStatistics;
import io.runlane.internal.query.TaskStatistics.Bucket;
import io.runlane.internal.query.TaskStatistics.Scope;
import io.runlane.internal.query.TaskStatistics.TaskFigures;
import io.runlane.internal.query.ThrottleBacklogs;
import io.runlane.internal.query.ThrottleBacklogs.KeyBacklog;
import io.runlane.internal.registry.DebouncePolicy;
import io.runlane.internal.registry.RateLimitPolicy;
import io.runlane.internal.registry.TaskDefinition;
import io.runlane.internal.registry.ThrottlePolicy;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The console's tasks page and charts (S-CO-20, S-CO-21): {@code GET api/tasks?range=} lists the declared tasks with
 * their declaration, schedules and the figures of their runs over the range; {@code GET
 * api/charts?range=&queue=|task=} answers throughput, failures and duration percentiles per interval. Both read through
 * {@link TaskStatistics}; nothing here writes.
 */
final class ConsoleTasks {

    /** The ranges offered, each with the interval of its charts. */
    enum Range {
        HOUR("1h", Duration.ofHours(1), Duration.ofMinutes(1)),
        DAY("24h", Duration.ofHours(24), Duration.ofMinutes(30)),
        WEEK("7d", Duration.ofDays(7), Duration.ofHours(4));

        final String label;

        final Duration length;

        final Duration bucket;

        Range(String label, Duration length, Duration bucket) {
            this.label = label;
            this.length = length;
            this.bucket = bucket;
        }

        static Range parse(@Nullable String value) {
            if (value == null || value.isEmpty()) {
                return DAY;
            }
            return Arrays.stream(values())
                    .filter(range -> range.label.equals(value))
                    .findFirst()
                    .orElseThrow(() -> new ConsoleRequestException("range '" + value + "' is not one of 1h, 24h, 7d"));
        }
    }

    private static final List<String> KEY_RESOLVERS =
            List.of("idempotencyKey", "singletonKey", "concurrencyKey", "debounceKey", "rateLimitKey", "throttleKey");

    /** The throttle keys listed per throttled task, those with the largest backlog first. */
    static final int THROTTLED_KEYS = 5;

    private final RunlaneEngine engine;

    private final TaskStatistics statistics;

    private final ThrottleBacklogs throttleBacklogs;

    ConsoleTasks(RunlaneEngine engine, TaskStatistics statistics, ThrottleBacklogs throttleBacklogs) {
        this.engine = engine;
        this.statistics = statistics;
        this.throttleBacklogs = throttleBacklogs;
    }

    ServerResponse tasks(ServerRequest request) {
        Range range = Range.parse(request.param("range").orElse(null));
        Map<String, TaskFigures> finished = statistics.finishedByTask(range.length);
        Map<String, Map<RunStatus, Long>> active = statistics.activeByTask();
        List<ScheduleInfo> schedules = engine.template().schedules().list();
        List<TaskEntry> tasks = engine.tasks().all().stream()
                .sorted((a, b) -> a.id().compareTo(b.id()))
                .map(task -> TaskEntry.of(
                        task,
                        keyResolvers(task.handlerClass()),
                        schedules.stream()
                                .filter(schedule -> schedule.taskId().equals(task.id()))
                                .map(TaskSchedule::of)
                                .toList(),
                        TaskFiguresView.of(finished.get(task.id()), active.getOrDefault(task.id(), Map.of())),
                        throttledKeys(task)))
                .toList();
        return ConsoleResponses.json(new TasksPage(range.label, range.length.toMillis(), tasks));
    }

    private List<KeyBacklog> throttledKeys(TaskDefinition task) {
        ThrottlePolicy throttle = task.throttle();
        return throttle == null
                ? List.of()
                : throttleBacklogs.keys(task.id(), throttle.limit(), throttle.period(), THROTTLED_KEYS);
    }

    /** {@code GET api/charts?range=1h|24h|7d} with at most one of {@code queue} and {@code task}. */
    ServerResponse charts(ServerRequest request) {
        Range range = Range.parse(request.param("range").orElse(null));
        String queue = request.param("queue").filter(value -> !value.isEmpty()).orElse(null);
        String task = request.param("task").filter(value -> !value.isEmpty()).orElse(null);
        if (queue != null && task != null) {
            throw new ConsoleRequestException("give either queue or task, not both");
        }
        Scope scope = Scope.ALL;
        String value = null;
        if (task != null) {
            engine.tasks().find(task).orElseThrow(() -> new TaskNotFoundException(task));
            scope = Scope.TASK;
            value = task;
        } else if (queue != null) {
            if (!engine.settings().queues().contains(queue)) {
                return ConsoleResponses.notFound("queue_not_found", "No queue " + queue);
            }
            scope = Scope.QUEUE;
            value = queue;
        }
        List<Bucket> buckets = statistics.series(range.length, range.bucket, scope, value);
        return ConsoleResponses.json(
                new Charts(range.label, range.bucket.toMillis(), scope.name().toLowerCase(), value, buckets));
    }

    /**
     * The key resolvers the handler class overrides, of those {@link TaskKeys} declares with a default that yields no
     * key; a bridge method of a generic override counts as the override.
     */
    static List<String> keyResolvers(Class<?> handlerClass) {
        return KEY_RESOLVERS.stream()
                .filter(name -> Arrays.stream(handlerClass.getMethods()).anyMatch(method -> overrides(method, name)))
                .toList();
    }

    private static boolean overrides(Method method, String name) {
        return method.getName().equals(name)
                && method.getParameterCount() == 1
                && method.getDeclaringClass() != TaskKeys.class
                && !method.getDeclaringClass().isInterface();
    }

    /** The tasks page: the range's label and length, and every declared task by id. */
    record TasksPage(String range, long rangeMillis, List<TaskEntry> tasks) {}

    /**
     * A declared task.
     *
     * @param keyResolvers the key resolvers its handler implements ({@code idempotencyKey}, {@code singletonKey}, …)
     * @param backoffMillis its own fixed or first backoff, {@code null} for the configured initial backoff
     * @param timeoutMillis its attempt timeout, {@code null} for the configured default
     * @param idempotencyKeyTtl its idempotency key retention ({@code active} or an ISO-8601 duration), {@code null}
     *     for the configured default
     * @param throttledKeys a throttled task's keys with runs waiting to start, the largest backlogs first, each with
     *     its starts in the current window and its next free slot (S-TH-1); empty without a throttle
     */
    record TaskEntry(
            String id,
            String queue,
            List<String> keyResolvers,
            int maxAttempts,
            @Nullable Long backoffMillis,
            double backoffMultiplier,
            @Nullable Long maxBackoffMillis,
            List<String> noRetryFor,
            @Nullable Long timeoutMillis,
            @Nullable String idempotencyKeyTtl,
            String onSingletonConflict,
            int priority,
            @Nullable DebounceView debounce,
            @Nullable LimitView rateLimit,
            @Nullable LimitView throttle,
            List<TaskSchedule> schedules,
            TaskFiguresView figures,
            List<KeyBacklog> throttledKeys) {

        static TaskEntry of(
                TaskDefinition task,
                List<String> keyResolvers,
                List<TaskSchedule> schedules,
                TaskFiguresView figures,
                List<KeyBacklog> throttledKeys) {
            return new TaskEntry(
                    task.id(),
                    task.queue(),
                    keyResolvers,
                    task.maxAttempts(),
                    millis(task.backoff()),
                    task.backoffMultiplier(),
                    millis(task.maxBackoff()),
                    task.noRetryFor().stream().map(Class::getName).toList(),
                    millis(task.timeout()),
                    task.idempotencyKeyTtl() == null
                            ? null
                            : task.idempotencyKeyTtl().toString(),
                    task.onSingletonConflict().name(),
                    task.priority(),
                    DebounceView.of(task.debounce()),
                    LimitView.of(task.rateLimit()),
                    LimitView.of(task.throttle()),
                    schedules,
                    figures,
                    throttledKeys);
        }
    }

    private static @Nullable Long millis(@Nullable Duration duration) {
        return duration == null ? null : duration.toMillis();
    }

    /** A declared debounce (S-DB-1). */
    record DebounceView(long periodMillis, @Nullable Long maxWaitMillis, String mode) {

        static @Nullable DebounceView of(@Nullable DebouncePolicy policy) {
            return policy == null
                    ? null
                    : new DebounceView(
                            policy.period().toMillis(),
                            millis(policy.maxWait()),
                            policy.mode().name());
        }
    }

    /** A declared rate limit (S-RT-1) or throttle (S-TH-1): {@code limit} per {@code periodMillis}. */
    record LimitView(int limit, long periodMillis) {

        static @Nullable LimitView of(@Nullable RateLimitPolicy policy) {
            return policy == null
                    ? null
                    : new LimitView(policy.limit(), policy.period().toMillis());
        }

        static @Nullable LimitView of(@Nullable ThrottlePolicy policy) {
            return policy == null
                    ? null
                    : new LimitView(policy.limit(), policy.period().toMillis());
        }
    }

    /** One of the task's schedules. */
    record TaskSchedule(String id, String expression, String zone, boolean paused, boolean declared) {

        static TaskSchedule of(ScheduleInfo schedule) {
            String zone = schedule.zone().normalized().getId();
            return new TaskSchedule(
                    schedule.id(),
                    schedule.expression(),
                    "Z".equals(zone) ? "UTC" : zone,
                    schedule.paused(),
                    schedule.declared());
        }
    }

    /**
     * A task's figures: its runs that finished in the range per terminal status, its active runs now per status,
     * the share of the finished that succeeded ({@code null} when none finished), and the duration percentiles of
     * the finished ({@code finished_at - created_at}).
     */
    record TaskFiguresView(
            Map<RunStatus, Long> finished,
            long finishedTotal,
            Map<RunStatus, Long> active,
            @Nullable Double successRate,
            @Nullable Double p50Millis,
            @Nullable Double p95Millis) {

        static TaskFiguresView of(@Nullable TaskFigures figures, Map<RunStatus, Long> active) {
            Map<RunStatus, Long> finished = new EnumMap<>(RunStatus.class);
            for (RunStatus status : List.of(RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED)) {
                finished.put(status, figures == null ? 0L : figures.finished().getOrDefault(status, 0L));
            }
            long total = finished.values().stream().mapToLong(Long::longValue).sum();
            return new TaskFiguresView(
                    finished,
                    total,
                    active,
                    total == 0 ? null : (double) finished.get(RunStatus.SUCCEEDED) / total,
                    figures == null ? null : figures.p50Millis(),
                    figures == null ? null : figures.p95Millis());
        }
    }

    /**
     * The charts of a range: {@code scope} is {@code all}, {@code queue} or {@code task} and {@code value} the queue or
     * task; one bucket per {@code bucketMillis}, oldest first, empty ones included.
     */
    record Charts(
            String range,
            long bucketMillis,
            String scope,
            @Nullable String value,
            List<Bucket> buckets) {}
}
