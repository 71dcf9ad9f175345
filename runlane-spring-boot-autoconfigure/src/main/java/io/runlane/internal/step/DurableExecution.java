package io.runlane.internal.step;

import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.query.RunReads;
import io.runlane.internal.result.ResultCodec;
import io.runlane.internal.signal.SignalInbox;
import io.runlane.internal.wait.RunParking;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What the worker needs for durable execution: the steps of each attempt, parking runs that wait, and the codec
 * that stores task results. One per engine, with the one {@link StepRecorder} that groups the steps its attempts
 * record at the same moment (S-ST-16).
 */
public final class DurableExecution {

    private final StepStore steps;

    private final StepRecorder recorder;

    private final RunReads reads;

    private final ResultCodec codec;

    private final RunParking parking;

    private final SignalInbox signals;

    private final TransactionTemplate transactions;

    /**
     * @param transactions the engine's {@code READ COMMITTED} transactions on the manager of Runlane's {@code
     *     DataSource} (S-TR-10, S-TR-11), which transactional steps run in (S-ST-8)
     */
    public DurableExecution(
            StepStore steps,
            RunReads reads,
            ResultCodec codec,
            RunParking parking,
            SignalInbox signals,
            TransactionTemplate transactions) {
        this.transactions = transactions;
        this.signals = signals;
        this.steps = steps;
        this.recorder = new StepRecorder(steps);
        this.reads = reads;
        this.codec = codec;
        this.parking = parking;
    }

    /**
     * The steps of one attempt of a claimed run, recorded on behalf of {@code worker}. A run's first attempt finds no
     * recorded step, unless the run is a fork, which starts with its source's (S-RV-3).
     */
    public AttemptSteps open(ClaimedRun claimed, String worker) {
        return new AttemptSteps(
                steps,
                recorder,
                new TransactionalSteps(steps, transactions),
                signals,
                reads,
                codec,
                claimed.run().id(),
                claimed.fencingToken(),
                worker,
                claimed.run().attempts() == 1
                        && !StepStore.FORK.equals(claimed.run().sourceType()));
    }

    public RunParking parking() {
        return parking;
    }

    public ResultCodec codec() {
        return codec;
    }
}
