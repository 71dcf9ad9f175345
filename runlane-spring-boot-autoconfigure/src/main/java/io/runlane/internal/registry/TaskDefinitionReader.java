package io.runlane.internal.registry;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.RunlaneException;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.FlowControlRules;
import io.runlane.internal.kernel.Guarantees;
import io.runlane.internal.kernel.KeyRules;
import io.runlane.internal.kernel.PriorityRules;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.kernel.TimeRules;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * Turns a {@code @Task} bean or bean class into a {@link TaskDefinition}, checking every attribute so that a bad declaration
 * fails start-up with a message naming the class (S-ID-2, S-QC-1) instead of failing its first trigger.
 */
public final class TaskDefinitionReader {

    private final RunlaneSettings settings;

    public TaskDefinitionReader(RunlaneSettings settings) {
        this.settings = settings;
    }

    /**
     * Reads a handler instance's declaration; the definition runs that instance. A {@link TaskFunction} runs through
     * a {@link FunctionTaskHandler}, which hands its result to the attempt (S-RS-1).
     */
    public TaskDefinition read(Object bean) {
        Class<?> handlerClass = AopUtils.getTargetClass(bean);
        requireHandler(handlerClass, bean instanceof TaskHandler<?> || bean instanceof TaskFunction<?, ?>);
        return read(handlerClass, asHandler(bean));
    }

    /**
     * Reads the declaration of a handler class without instantiating it; the definition looks the handler up with
     * {@code lookup} when a run first needs it. Every attribute is still checked now, so a bad declaration fails
     * start-up.
     */
    public TaskDefinition read(Class<?> handlerClass, Supplier<?> lookup) {
        requireHandler(
                handlerClass,
                TaskHandler.class.isAssignableFrom(handlerClass) || TaskFunction.class.isAssignableFrom(handlerClass));
        return read(handlerClass, new LazyTaskHandler(() -> asHandler(lookup.get())));
    }

    private static void requireHandler(Class<?> handlerClass, boolean implementsTaskInterface) {
        if (!implementsTaskInterface) {
            throw new TaskDeclarationException(
                    handlerClass, "is annotated with @Task but does not implement TaskHandler or TaskFunction");
        }
    }

    @SuppressWarnings("unchecked")
    private static TaskHandler<Object> asHandler(Object bean) {
        return bean instanceof TaskFunction<?, ?> function
                ? new FunctionTaskHandler(function)
                : (TaskHandler<Object>) bean;
    }

    private TaskDefinition read(Class<?> handlerClass, TaskHandler<Object> handler) {
        Task task = AnnotatedElementUtils.findMergedAnnotation(handlerClass, Task.class);
        if (task == null) {
            throw new TaskDeclarationException(handlerClass, "has no @Task annotation");
        }
        String id = checked(handlerClass, "id", task.id());
        String queue = checked(handlerClass, "queue", task.queue());
        if (!settings.queues().contains(queue)) {
            throw new TaskDeclarationException(
                    handlerClass,
                    "names queue '" + queue + "', which is not declared; declare it under runlane.queues." + queue
                            + " (declared: " + settings.queues() + ") (S-QC-1, " + Guarantees.link("S-QC-1") + ")");
        }
        Class<?> taskInterface =
                TaskFunction.class.isAssignableFrom(handlerClass) ? TaskFunction.class : TaskHandler.class;
        ResolvableType payload =
                ResolvableType.forClass(handlerClass).as(taskInterface).getGeneric(0);
        Class<?> payloadClass = payload.resolve();
        if (payloadClass == null || payload.hasUnresolvableGenerics()) {
            throw new TaskDeclarationException(
                    handlerClass,
                    "must implement " + taskInterface.getSimpleName() + " with a concrete payload type P, but it is "
                            + payload);
        }
        IdempotencyKeyTtl ttl = task.idempotencyKeyTtl().isEmpty() ? null : ttl(handlerClass, task.idempotencyKeyTtl());
        if (task.maxAttempts() < 0) {
            throw new TaskDeclarationException(
                    handlerClass, "maxAttempts must be 0 (the default) or positive, but was " + task.maxAttempts());
        }
        int maxAttempts = task.maxAttempts() == 0 ? settings.defaultMaxAttempts() : task.maxAttempts();
        Duration backoff = task.backoff().isEmpty() ? null : duration(handlerClass, "backoff", task.backoff());
        Duration maxBackoff =
                task.maxBackoff().isEmpty() ? null : duration(handlerClass, "maxBackoff", task.maxBackoff());
        checkBackoff(handlerClass, backoff, task.backoffMultiplier(), maxBackoff);
        Duration timeout = task.timeout().isEmpty() ? null : duration(handlerClass, "timeout", task.timeout());
        String priorityViolation = PriorityRules.violation(task.priority());
        if (priorityViolation != null) {
            throw new TaskDeclarationException(handlerClass, "priority " + priorityViolation);
        }
        return new TaskDefinition(
                id,
                queue,
                handler,
                handlerClass,
                payloadClass,
                ResolvedTypes.of(payload),
                ttl,
                maxAttempts,
                backoff,
                List.of(task.noRetryFor()),
                task.backoffMultiplier(),
                maxBackoff,
                timeout,
                task.onSingletonConflict(),
                task.priority(),
                debounce(handlerClass, task),
                rateLimit(handlerClass, task),
                throttle(handlerClass, task));
    }

    private static @Nullable DebouncePolicy debounce(Class<?> handlerClass, Task task) {
        if (task.debounce().isEmpty()) {
            if (!task.debounceMaxWait().isEmpty()) {
                throw new TaskDeclarationException(
                        handlerClass, "debounceMaxWait '" + task.debounceMaxWait() + "' needs a debounce period");
            }
            return null;
        }
        Duration period = duration(handlerClass, "debounce", task.debounce());
        declared(handlerClass, "debounce", FlowControlRules.debounceViolation(period), "S-DB-1");
        Duration maxWait = null;
        if (!task.debounceMaxWait().isEmpty()) {
            maxWait = duration(handlerClass, "debounceMaxWait", task.debounceMaxWait());
            declared(
                    handlerClass,
                    "debounceMaxWait",
                    FlowControlRules.debounceMaxWaitViolation(maxWait, period),
                    "S-DB-1");
        }
        return new DebouncePolicy(period, maxWait, task.debounceMode());
    }

    private static @Nullable RateLimitPolicy rateLimit(Class<?> handlerClass, Task task) {
        if (task.rateLimit() == 0 && task.rateLimitPeriod().isEmpty()) {
            return null;
        }
        declared(handlerClass, "rateLimit", FlowControlRules.rateLimitViolation(task.rateLimit()), "S-RT-1");
        if (task.rateLimitPeriod().isEmpty()) {
            throw new TaskDeclarationException(
                    handlerClass, "rateLimit " + task.rateLimit() + " needs a rateLimitPeriod such as '1m' (S-RT-1)");
        }
        Duration period = duration(handlerClass, "rateLimitPeriod", task.rateLimitPeriod());
        declared(handlerClass, "rateLimitPeriod", FlowControlRules.rateLimitPeriodViolation(period), "S-RT-1");
        return new RateLimitPolicy(task.rateLimit(), period);
    }

    private static @Nullable ThrottlePolicy throttle(Class<?> handlerClass, Task task) {
        if (task.throttle() == 0 && task.throttlePeriod().isEmpty()) {
            return null;
        }
        declared(handlerClass, "throttle", FlowControlRules.throttleViolation(task.throttle()), "S-TH-1");
        if (task.throttlePeriod().isEmpty()) {
            throw new TaskDeclarationException(
                    handlerClass, "throttle " + task.throttle() + " needs a throttlePeriod such as '1s' (S-TH-1)");
        }
        Duration period = duration(handlerClass, "throttlePeriod", task.throttlePeriod());
        declared(handlerClass, "throttlePeriod", FlowControlRules.throttlePeriodViolation(period), "S-TH-1");
        return new ThrottlePolicy(task.throttle(), period);
    }

    private static void declared(Class<?> handlerClass, String attribute, @Nullable String reason, String rule) {
        if (reason != null) {
            throw new TaskDeclarationException(
                    handlerClass, attribute + " " + reason + " (" + rule + ", " + Guarantees.link(rule) + ")");
        }
    }

    private static String checked(Class<?> handlerClass, String attribute, String value) {
        String reason = KeyRules.violation(value);
        if (reason != null) {
            throw new TaskDeclarationException(
                    handlerClass, attribute + " " + reason + " (S-ID-1, " + Guarantees.link("S-ID-1") + ")");
        }
        return value;
    }

    private static IdempotencyKeyTtl ttl(Class<?> handlerClass, String value) {
        try {
            return TimeRules.requireTtl("idempotencyKeyTtl", IdempotencyKeyTtl.parse(value));
        } catch (RunlaneException ex) {
            throw new TaskDeclarationException(handlerClass, ex.getMessage(), ex);
        }
    }

    /**
     * S-EX-4: a multiplier is 0 (fixed or configured) or at least 1; a maximum caps an exponential backoff only and
     * is not shorter than the task's first delay. The configured initial delay is checked against it at run time.
     */
    private static void checkBackoff(
            Class<?> handlerClass, @Nullable Duration backoff, double multiplier, @Nullable Duration maxBackoff) {
        if (!(multiplier == 0 || multiplier >= 1) || Double.isInfinite(multiplier)) {
            throw new TaskDeclarationException(
                    handlerClass,
                    "backoffMultiplier must be 0 (a fixed backoff) or a finite number of at least 1, but was "
                            + multiplier);
        }
        if (maxBackoff != null && multiplier == 0 && backoff != null) {
            throw new TaskDeclarationException(
                    handlerClass,
                    "maxBackoff '" + maxBackoff + "' needs an exponential backoff, but backoff '" + backoff
                            + "' is fixed; set backoffMultiplier");
        }
        if (maxBackoff != null && backoff != null && maxBackoff.compareTo(backoff) < 0) {
            throw new TaskDeclarationException(
                    handlerClass, "maxBackoff " + maxBackoff + " must not be shorter than backoff " + backoff);
        }
    }

    private static Duration duration(Class<?> handlerClass, String attribute, String value) {
        @Nullable Duration parsed;
        try {
            parsed = DurationFormatterUtils.parse(value, DurationFormat.Style.SIMPLE);
        } catch (RuntimeException ex) {
            parsed = null;
        }
        if (parsed == null || parsed.isNegative() || parsed.isZero()) {
            throw new TaskDeclarationException(
                    handlerClass, attribute + " must be a positive duration such as '10s', but was '" + value + "'");
        }
        return parsed;
    }
}
