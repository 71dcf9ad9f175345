package io.runlane.internal.step;

import io.runlane.internal.jdbc.ClaimedRun;
import io.runlane.internal.jdbc.RunReads;
import io.runlane.internal.result.ResultCodec;
import io.runlane.internal.wait.RunParking;

/**
 * What the worker needs for durable execution: the steps of each attempt, parking runs that wait, and the codec
 * that stores task results. One per engine.
 */
public final class DurableExecution {

    private final StepStore steps;

    private final RunReads reads;

    private final ResultCodec codec;

    private final RunParking parking;

    public DurableExecution(StepStore steps, RunReads reads, ResultCodec codec, RunParking parking) {
        this.steps = steps;
        this.reads = reads;
        this.codec = codec;
        this.parking = parking;
    }

    /** The steps of one attempt of a claimed run, recorded on behalf of {@code worker}. */
    public AttemptSteps open(ClaimedRun claimed, String worker) {
        return new AttemptSteps(
                steps,
                reads,
                codec,
                claimed.run().id(),
                claimed.fencingToken(),
                worker,
                claimed.run().attempts() == 1);
    }

    public RunParking parking() {
        return parking;
    }

    public ResultCodec codec() {
        return codec;
    }
}
