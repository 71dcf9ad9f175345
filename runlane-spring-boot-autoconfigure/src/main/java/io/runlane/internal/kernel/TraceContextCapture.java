package io.runlane.internal.kernel;

import java.util.Map;

/**
 * Captures the trace context a new run stores, so that its attempts continue the trigger's trace (S-MO-9): the
 * propagation headers of the current span ({@code traceparent}, {@code b3}, ...), as a tracer would send them to
 * another service. The engine only stores and hands back these strings; an instrumentation (Micrometer Tracing in
 * Boot) writes them at trigger time and reads them when an attempt starts. Called on the triggering thread; must be
 * quick and must not throw.
 */
@FunctionalInterface
public interface TraceContextCapture {

    /** Captures nothing: runs store no trace context and attempts start traces of their own. */
    TraceContextCapture NONE = Map::of;

    /** The current trace context as propagation headers; empty when nothing is traced. */
    Map<String, String> capture();
}
