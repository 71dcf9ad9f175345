package io.runlane.internal.registry;

import io.runlane.RunContext;
import io.runlane.TaskHandler;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A handler bean looked up on first use. The registry is read from bean types at start-up, before the handler beans
 * exist; looking them up only when a run is triggered or executed lets a handler depend on the
 * {@link io.runlane.RunlaneTemplate} (handler, template, engine and registry would otherwise form a cycle).
 */
final class LazyTaskHandler implements TaskHandler<Object> {

    private final Supplier<?> lookup;

    private volatile @Nullable TaskHandler<Object> handler;

    LazyTaskHandler(Supplier<?> lookup) {
        this.lookup = lookup;
    }

    @Override
    public void run(Object payload, RunContext context) throws Exception {
        handler().run(payload, context);
    }

    @Override
    public @Nullable String idempotencyKey(Object payload) {
        return handler().idempotencyKey(payload);
    }

    @Override
    public @Nullable String singletonKey(Object payload) {
        return handler().singletonKey(payload);
    }

    @Override
    public @Nullable String concurrencyKey(Object payload) {
        return handler().concurrencyKey(payload);
    }

    @Override
    public @Nullable String debounceKey(Object payload) {
        return handler().debounceKey(payload);
    }

    @Override
    public @Nullable String rateLimitKey(Object payload) {
        return handler().rateLimitKey(payload);
    }

    @Override
    public @Nullable String throttleKey(Object payload) {
        return handler().throttleKey(payload);
    }

    @SuppressWarnings("unchecked")
    private TaskHandler<Object> handler() {
        TaskHandler<Object> resolved = handler;
        if (resolved == null) {
            resolved = (TaskHandler<Object>) lookup.get();
            handler = resolved;
        }
        return resolved;
    }

    @Override
    public String toString() {
        TaskHandler<Object> resolved = handler;
        return resolved == null ? "LazyTaskHandler[not yet looked up]" : resolved.toString();
    }
}
