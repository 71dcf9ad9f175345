package io.runlane.internal.worker;

import io.runlane.Run;

/**
 * Wraps each call of a handler on its own thread, for instrumentation (a Micrometer observation around the attempt)
 * without the engine depending on it. It must call {@code handler} exactly once and let its exception through.
 */
@FunctionalInterface
public interface HandlerInvocation {

    HandlerInvocation DIRECT = (run, attempt, handler) -> handler.call();

    void invoke(Run run, int attempt, Handler handler) throws Exception;

    /** The handler call being wrapped. */
    @FunctionalInterface
    interface Handler {

        void call() throws Exception;
    }
}
