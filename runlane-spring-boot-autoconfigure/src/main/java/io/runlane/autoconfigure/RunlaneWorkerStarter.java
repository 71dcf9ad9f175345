package io.runlane.autoconfigure;

import io.runlane.internal.worker.RunWorker;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the worker while the context runs, except that its first start waits until the application is ready, so that
 * no run executes while other beans, runners or the web server are still starting (a handler may need any of them,
 * S-EX-28). After that it follows the context's lifecycle: {@code stop()} and {@code pause()} stop the worker (which
 * waits for running attempts, S-EX-8), {@code start()} and {@code restart()} start it again. Spring's test context
 * cache pauses the contexts it is not using and restarts them when a test needs them, and checkpoint/restore stops
 * and starts the context's lifecycle beans the same way; a worker started only by the event would never run again.
 */
final class RunlaneWorkerStarter implements SmartLifecycle, ApplicationListener<ApplicationReadyEvent> {

    private final RunWorker worker;

    private boolean ready;

    private volatile boolean running;

    RunlaneWorkerStarter(RunWorker worker) {
        this.worker = worker;
    }

    @Override
    public synchronized void onApplicationEvent(ApplicationReadyEvent event) {
        ready = true;
        if (running) {
            worker.start();
        }
    }

    @Override
    public synchronized void start() {
        running = true;
        if (ready) {
            worker.start();
        }
    }

    @Override
    public synchronized void stop() {
        running = false;
        worker.stop();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The worker's phase: stopped with it, before the beans that handlers use (S-EX-8). */
    @Override
    public int getPhase() {
        return worker.getPhase();
    }
}
