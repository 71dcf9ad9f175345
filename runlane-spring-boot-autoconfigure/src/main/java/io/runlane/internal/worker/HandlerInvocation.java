package io.runlane.internal.worker;

import io.runlane.internal.kernel.ClaimedRun;

/**
 * Wraps each call of a handler on its own thread, for instrumentation (a Micrometer observation around the attempt,
 * continuing the trace context its trigger stored, S-MO-9) without the engine depending on it. It must call {@code
 * handler} exactly once and let its exception through.
 */
@FunctionalInterface
public interface HandlerInvocation {

    HandlerInvocation DIRECT = (claimed, attempt, handler) -> handler.call();

    void invoke(ClaimedRun claimed, int attempt, Handler handler) throws Exception;

    /** The handler call being wrapped. */
    @FunctionalInterface
    interface Handler {

        void call() throws Exception;
    }
}
