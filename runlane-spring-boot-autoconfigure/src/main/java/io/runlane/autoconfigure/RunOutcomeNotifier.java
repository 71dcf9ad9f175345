package io.runlane.autoconfigure;

import io.runlane.Run;
import io.runlane.RunFailedEvent;
import io.runlane.RunOutcomeListener;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.internal.kernel.ClaimedRun;
import io.runlane.internal.kernel.EngineListener;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Turns the terminal outcomes of this application's engine into {@link RunOutcomeListener} calls and {@link
 * RunFailedEvent}s: the worker's (an attempt timeout included), and the ends outside an attempt (an operator's
 * cancel, a supersede, lease recovery, the cancellation grace, a schedule's {@code CANCEL_OTHER}). The engine
 * reports each once it is committed, so the run is read back committed, with its failure; that read and the
 * application's listeners run on one thread of their own, so a slow listener never holds a worker's slot, its
 * completion writer, maintenance or an operator's call.
 */
final class RunOutcomeNotifier implements EngineListener, DisposableBean {

    private static final Log logger = LogFactory.getLog(RunOutcomeNotifier.class);

    private static final Set<String> TERMINAL = Set.of("succeeded", "failed", "cancelled");

    private final ApplicationEventPublisher events;

    private final ObjectProvider<RunOutcomeListener> listeners;

    private final ObjectProvider<RunlaneTemplate> template;

    private final ExecutorService executor;

    /** The application's listeners, looked up at the first outcome (the context is refreshed by then). */
    private volatile @Nullable List<RunOutcomeListener> resolved;

    RunOutcomeNotifier(
            ApplicationEventPublisher events,
            ObjectProvider<RunOutcomeListener> listeners,
            ObjectProvider<RunlaneTemplate> template) {
        this.events = events;
        this.listeners = listeners;
        this.template = template;
        CustomizableThreadFactory threads = new CustomizableThreadFactory("runlane-outcomes-");
        threads.setDaemon(true);
        this.executor = Executors.newSingleThreadExecutor(threads);
    }

    @Override
    public void attemptEnded(ClaimedRun claimed, String result, Duration duration) {
        // A FAILED run is always read back for its event; other outcomes only when a listener wants them.
        if (result.equals("failed")
                || (TERMINAL.contains(result) && !listeners().isEmpty())) {
            executor.execute(() -> notify(claimed.run().id()));
        }
    }

    @Override
    public void runEnded(UUID runId, RunStatus status) {
        if (status == RunStatus.FAILED || (status.isTerminal() && !listeners().isEmpty())) {
            executor.execute(() -> notify(runId));
        }
    }

    private void notify(UUID runId) {
        try {
            Optional<Run> stored = template.getObject().runs().get(runId);
            if (stored.isEmpty() || !stored.get().status().isTerminal()) {
                return;
            }
            Run run = stored.get();
            for (RunOutcomeListener listener : listeners()) {
                try {
                    listener.runFinished(run);
                } catch (RuntimeException ex) {
                    logger.warn("RunOutcomeListener " + listener + " failed on run " + run.id(), ex);
                }
            }
            if (run.status() == RunStatus.FAILED) {
                events.publishEvent(new RunFailedEvent(run));
            }
        } catch (RuntimeException ex) {
            logger.warn("Could not report the outcome of run " + runId, ex);
        }
    }

    private List<RunOutcomeListener> listeners() {
        List<RunOutcomeListener> current = resolved;
        if (current == null) {
            current = listeners.orderedStream().toList();
            resolved = current;
        }
        return current;
    }

    @Override
    public void destroy() {
        executor.shutdownNow();
    }
}
