package io.runlane.autoconfigure;

import io.runlane.internal.worker.RunWorker;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

/**
 * Starts the worker once the application is ready, so that no run executes while other beans, runners or the web
 * server are still starting (a handler may need any of them). Stopping stays with the context's lifecycle.
 */
final class RunlaneWorkerStarter implements ApplicationListener<ApplicationReadyEvent> {

    private final RunWorker worker;

    RunlaneWorkerStarter(RunWorker worker) {
        this.worker = worker;
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        worker.start();
    }
}
