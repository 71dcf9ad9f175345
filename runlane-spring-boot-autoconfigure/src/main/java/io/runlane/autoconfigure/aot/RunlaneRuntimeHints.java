package io.runlane.autoconfigure.aot;

import io.runlane.Page;
import io.runlane.PruneResult;
import io.runlane.Run;
import io.runlane.RunAttempt;
import io.runlane.RunEvent;
import io.runlane.RunFailure;
import io.runlane.RunSignal;
import io.runlane.RunStep;
import io.runlane.ScheduleInfo;
import io.runlane.TriggerResult;
import java.sql.Connection;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * What Runlane reads by reflection, from resources or through a proxy, registered for a native image:
 *
 * <ul>
 *   <li>its Liquibase changelog and SQL changesets ({@code db/runlane/**}), which it applies and verifies at start-up,
 *       and the console's page, scripts and styles ({@code META-INF/runlane-console/**});
 *   <li>its JSON read models: the public records it returns ({@link Run}, {@link RunAttempt}, …), the actuator
 *       endpoints' descriptors and the console API's answers and request bodies, which Jackson writes and reads by
 *       reflection;
 *   <li>the JDK proxy of {@link Connection} through which it restores a pooled connection's settings.
 * </ul>
 *
 * The console and actuator types are package-private or optional, so they are named here and resolved when hints
 * are generated; a name that no longer resolves fails {@code RunlaneRuntimeHintsTests}.
 */
class RunlaneRuntimeHints implements RuntimeHintsRegistrar {

    /** The JSON of the public API, as the endpoint, the console and the problem details write it. */
    static final List<Class<?>> PUBLIC_READ_MODELS = List.of(
            Run.class,
            RunAttempt.class,
            RunEvent.class,
            RunFailure.class,
            RunSignal.class,
            RunStep.class,
            ScheduleInfo.class,
            Page.class,
            PruneResult.class,
            TriggerResult.class);

    /** The actuator endpoints' answers, when the actuator is on the class path. */
    static final List<String> ENDPOINT_READ_MODELS = List.of(
            "io.runlane.autoconfigure.actuate.RunlaneEndpoint$RunlaneDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneEndpoint$TaskDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneEndpoint$QueueDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneEndpoint$WorkerDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneEndpoint$MaintenanceDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneEndpoint$RecoveryDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneEndpoint$PruningDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneEndpoint$RunsDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneEndpoint$RunDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneEndpoint$KeyResetDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneEndpoint$PruneDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneEndpointWebExtension$Failure",
            "io.runlane.autoconfigure.actuate.RunlaneSchedulesEndpoint$SchedulesDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneSchedulesEndpoint$ScheduleActionDescriptor",
            "io.runlane.autoconfigure.actuate.RunlaneSchedulesEndpoint$ScheduleDeletedDescriptor");

    /** The console API's answers and the request bodies it reads, when Spring MVC is on the class path. */
    static final List<String> CONSOLE_READ_MODELS = List.of(
            "io.runlane.autoconfigure.console.ConsoleActions$CancelBody",
            "io.runlane.autoconfigure.console.ConsoleActions$KeyResetBody",
            "io.runlane.autoconfigure.console.ConsoleActions$KeyReset",
            "io.runlane.autoconfigure.console.ConsoleActions$TriggerBody",
            "io.runlane.autoconfigure.console.ConsoleActions$Triggered",
            "io.runlane.autoconfigure.console.ConsoleLiveRuns$RunState",
            "io.runlane.autoconfigure.console.ConsoleLiveRuns$Gone",
            "io.runlane.autoconfigure.console.ConsoleApi$RunsPage",
            "io.runlane.autoconfigure.console.ConsoleReads$ConsoleInfo",
            "io.runlane.autoconfigure.console.ConsoleReads$TaskView",
            "io.runlane.autoconfigure.console.ConsoleReads$Overview",
            "io.runlane.autoconfigure.console.ConsoleReads$QueueView",
            "io.runlane.autoconfigure.console.ConsoleReads$Throughput",
            "io.runlane.autoconfigure.console.ConsoleReads$ThroughputInterval",
            "io.runlane.autoconfigure.console.ConsoleReads$WorkerView",
            "io.runlane.autoconfigure.console.ConsoleReads$RunDetail",
            "io.runlane.autoconfigure.console.ConsoleReads$RunActions",
            "io.runlane.autoconfigure.console.ConsoleResponses$Failure",
            "io.runlane.autoconfigure.console.ConsoleSchedules$SchedulesSummary",
            "io.runlane.autoconfigure.console.ConsoleSchedules$SchedulesPage",
            "io.runlane.autoconfigure.console.ConsoleSchedules$ScheduleActionResult",
            "io.runlane.autoconfigure.console.ConsoleSchedules$ScheduleView",
            "io.runlane.autoconfigure.console.ConsoleSchedules$ScheduleActions",
            "io.runlane.autoconfigure.console.ConsoleTasks$TasksPage",
            "io.runlane.autoconfigure.console.ConsoleTasks$Charts");

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern("db/runlane/*.xml").registerPattern("db/runlane/changes/*.sql");
        hints.resources().registerPattern("META-INF/runlane-console/**");
        hints.proxies().registerJdkProxy(Connection.class);
        bindings.registerReflectionHints(hints.reflection(), PUBLIC_READ_MODELS.toArray(Class<?>[]::new));
        registerPresent(hints, classLoader, ENDPOINT_READ_MODELS);
        registerPresent(hints, classLoader, CONSOLE_READ_MODELS);
    }

    /** Registers the types that load: the endpoint's and the console's need their optional dependencies. */
    private void registerPresent(RuntimeHints hints, @Nullable ClassLoader classLoader, List<String> names) {
        for (String name : names) {
            if (ClassUtils.isPresent(name, classLoader)) {
                bindings.registerReflectionHints(hints.reflection(), ClassUtils.resolveClassName(name, classLoader));
            }
        }
    }
}
