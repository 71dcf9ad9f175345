package io.runlane.internal.registry;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.RunlaneException;
import io.runlane.Task;
import io.runlane.TaskFunction;
import io.runlane.TaskHandler;
import io.runlane.internal.RunlaneSettings;
import io.runlane.internal.result.FunctionTaskHandler;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * Turns a {@code @Task} bean into a {@link TaskDefinition}, checking every attribute so that a bad declaration
 * fails start-up with a message naming the class (S-ID-2, S-QC-1) instead of failing its first trigger.
 */
public final class TaskDefinitionReader {

    private final RunlaneSettings settings;

    public TaskDefinitionReader(RunlaneSettings settings) {
        this.settings = settings;
    }

    @SuppressWarnings("unchecked")
    public TaskDefinition read(Object bean) {
        Class<?> handlerClass = AopUtils.getTargetClass(bean);
        TaskHandler<?> handler;
        Class<?> taskInterface;
        if (bean instanceof TaskHandler<?> taskHandler) {
            handler = taskHandler;
            taskInterface = TaskHandler.class;
        } else if (bean instanceof TaskFunction<?, ?> function) {
            // S-RS-1: the adapter hands the returned value to the attempt, which stores it with the completion.
            handler = new FunctionTaskHandler(function);
            taskInterface = TaskFunction.class;
        } else {
            throw new TaskDeclarationException(
                    handlerClass, "is annotated with @Task but does not implement TaskHandler or TaskFunction");
        }
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
                            + " (declared: " + settings.queues() + ") (S-QC-1)");
        }
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
        Duration backoff = task.backoff().isEmpty() ? null : backoff(handlerClass, task.backoff());
        return new TaskDefinition(
                id,
                queue,
                (TaskHandler<Object>) handler,
                handlerClass,
                payloadClass,
                payload.getType(),
                ttl,
                maxAttempts,
                backoff,
                List.of(task.noRetryFor()));
    }

    private static String checked(Class<?> handlerClass, String attribute, String value) {
        String reason = KeyRules.violation(value);
        if (reason != null) {
            throw new TaskDeclarationException(handlerClass, attribute + " " + reason + " (S-ID-1)");
        }
        return value;
    }

    private static IdempotencyKeyTtl ttl(Class<?> handlerClass, String value) {
        try {
            return IdempotencyKeyTtl.parse(value);
        } catch (RunlaneException ex) {
            throw new TaskDeclarationException(handlerClass, ex.getMessage(), ex);
        }
    }

    private static Duration backoff(Class<?> handlerClass, String value) {
        @Nullable Duration parsed;
        try {
            parsed = DurationFormatterUtils.parse(value, DurationFormat.Style.SIMPLE);
        } catch (RuntimeException ex) {
            parsed = null;
        }
        if (parsed == null || parsed.isNegative() || parsed.isZero()) {
            throw new TaskDeclarationException(
                    handlerClass, "backoff must be a positive duration such as '10s', but was '" + value + "'");
        }
        return parsed;
    }
}
