package io.runlane.internal.registry;

import io.runlane.IdempotencyKeyTtl;
import io.runlane.TaskHandler;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A validated task declaration: the handler bean, its payload type and its policy, with configured defaults
 * already applied where the declaration left a value empty.
 *
 * @param id the task id
 * @param queue the queue
 * @param handler the handler bean
 * @param handlerClass the user class of the handler (not a proxy)
 * @param payloadClass the raw payload class
 * @param payloadType the full generic payload type, for JSON mapping
 * @param idempotencyKeyTtl the task's retention, or {@code null} to use the configured default at trigger time
 * @param maxAttempts the attempt budget
 * @param backoff a fixed retry backoff, or {@code null} for the configured exponential backoff
 * @param noRetryFor exception types that fail the run at once
 * @param timeout how long one attempt may run, or {@code null} for the configured default (S-EX-21)
 */
public record TaskDefinition(
        String id,
        String queue,
        TaskHandler<Object> handler,
        Class<?> handlerClass,
        Class<?> payloadClass,
        Type payloadType,
        @Nullable IdempotencyKeyTtl idempotencyKeyTtl,
        int maxAttempts,
        @Nullable Duration backoff,
        List<Class<? extends Throwable>> noRetryFor,
        @Nullable Duration timeout) {}
