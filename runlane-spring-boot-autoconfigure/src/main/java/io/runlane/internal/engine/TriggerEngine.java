package io.runlane.internal.engine;

import io.runlane.IdempotencyKeyOperations;
import io.runlane.RunlaneTemplate;
import io.runlane.ScheduleOperations;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.internal.kernel.EngineListener;
import io.runlane.internal.kernel.RunlaneSettings;
import io.runlane.internal.kernel.TraceContextCapture;
import io.runlane.internal.lifecycle.RunTransitions;
import io.runlane.internal.maintenance.RunPruner;
import io.runlane.internal.operations.DefaultIdempotencyKeyOperations;
import io.runlane.internal.operations.DefaultRunOperations;
import io.runlane.internal.operations.IdempotencyKeyResets;
import io.runlane.internal.query.RunListing;
import io.runlane.internal.query.RunReads;
import io.runlane.internal.registry.PayloadCodec;
import io.runlane.internal.registry.TaskRegistry;
import io.runlane.internal.result.RunResults;
import io.runlane.internal.signal.DefaultSignalOperations;
import io.runlane.internal.signal.SignalMailbox;
import io.runlane.internal.signal.SignalPayloads;
import io.runlane.internal.step.StepStore;
import io.runlane.internal.trigger.DefaultRunlaneTemplate;
import io.runlane.internal.trigger.RunAdmissions;
import io.runlane.internal.trigger.RunAdmitter;
import io.runlane.internal.trigger.TriggerPlanner;
import org.springframework.transaction.support.TransactionTemplate;

/** Assembles the template and its operator APIs from the engine's SQL parts. */
final class TriggerEngine {

    private TriggerEngine() {}

    public static RunlaneTemplate template(
            RunlaneSettings settings,
            TaskRegistry tasks,
            PayloadCodec payloads,
            RunAdmissions admissions,
            RunReads reads,
            RunListing listing,
            RunTransitions transitions,
            RunPruner pruner,
            IdempotencyKeyResets resets,
            DueRunNotifier notifier,
            EngineListener listener,
            RunResults results,
            StepStore steps,
            ScheduleOperations schedules,
            SignalMailbox signals,
            SignalPayloads signalPayloads,
            TraceContextCapture traceContexts,
            TransactionTemplate transactions) {
        TriggerPlanner planner = new TriggerPlanner(settings, payloads, traceContexts);
        RunAdmitter admitter = new RunAdmitter(admissions, notifier, listener);
        DefaultRunOperations runs = new DefaultRunOperations(
                reads,
                listing,
                transitions,
                pruner,
                tasks,
                planner,
                admitter,
                listener,
                results,
                steps,
                signals,
                notifier,
                transactions);
        IdempotencyKeyOperations keys = new DefaultIdempotencyKeyOperations(tasks, resets);
        return new DefaultRunlaneTemplate(
                tasks,
                planner,
                admitter,
                runs,
                keys,
                schedules,
                new DefaultSignalOperations(signals, signalPayloads, tasks));
    }
}
