package io.runlane.internal.kernel;

import org.jspecify.annotations.Nullable;

/** Receives what a {@link io.runlane.TaskFunction} returned, for the attempt's completion to store (S-RS-1). */
public interface ResultSink {

    void returned(@Nullable Object result);
}
