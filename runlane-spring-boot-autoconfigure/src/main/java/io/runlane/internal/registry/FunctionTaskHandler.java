package io.runlane.internal.registry;

import io.runlane.RunContext;
import io.runlane.TaskFunction;
import io.runlane.TaskHandler;
import io.runlane.internal.kernel.ResultSink;
import org.jspecify.annotations.Nullable;

/**
 * Runs a {@link TaskFunction} where the engine expects a {@link TaskHandler}: it hands the returned value to the
 * attempt's {@link ResultSink}, which stores it with the completion (S-RS-1), and delegates the key resolvers. The
 * rest of the engine (registry, triggers, worker) thereby treats both kinds of task alike.
 */
public final class FunctionTaskHandler implements TaskHandler<Object> {

    private final TaskFunction<Object, ?> function;

    @SuppressWarnings("unchecked")
    public FunctionTaskHandler(TaskFunction<?, ?> function) {
        this.function = (TaskFunction<Object, ?>) function;
    }

    /** The user's function. */
    public TaskFunction<?, ?> function() {
        return function;
    }

    @Override
    public void run(Object payload, RunContext context) throws Exception {
        Object result = function.run(payload, context);
        if (!(context instanceof ResultSink sink)) {
            throw new IllegalStateException("A task function needs the engine's run context to return a result");
        }
        sink.returned(result);
    }

    @Override
    public @Nullable String idempotencyKey(Object payload) {
        return function.idempotencyKey(payload);
    }

    @Override
    public @Nullable String singletonKey(Object payload) {
        return function.singletonKey(payload);
    }

    @Override
    public @Nullable String concurrencyKey(Object payload) {
        return function.concurrencyKey(payload);
    }

    @Override
    public @Nullable String debounceKey(Object payload) {
        return function.debounceKey(payload);
    }

    @Override
    public @Nullable String rateLimitKey(Object payload) {
        return function.rateLimitKey(payload);
    }

    @Override
    public @Nullable String throttleKey(Object payload) {
        return function.throttleKey(payload);
    }

    @Override
    public String toString() {
        return function.toString();
    }
}
