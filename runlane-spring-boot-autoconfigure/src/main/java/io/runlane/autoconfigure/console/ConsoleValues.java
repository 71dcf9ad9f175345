package io.runlane.autoconfigure.console;

import io.runlane.Page;
import io.runlane.Run;
import io.runlane.RunSignal;
import io.runlane.autoconfigure.RunlaneProperties.ConsoleShowValues;
import io.runlane.autoconfigure.actuate.RunValues;
import io.runlane.autoconfigure.console.ConsoleReads.History;
import io.runlane.autoconfigure.console.ConsoleReads.RunDetail;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * Masks the values runs carry unless {@code runlane.console.show-values} shows them to the request's user (S-CO-13),
 * as the actuator endpoint does (S-MO-8): a run's payload and result, the results of the handler's steps and of the
 * engine's wait outcomes (a received signal's payload, an awaited run's result), and signal payloads are replaced by
 * {@code "******"}, and so is the stack trace stored with a failure (S-EX-35), which quotes the messages of the
 * exception's causes. Ids, names, keys, statuses, times, wait deadlines and failures (code, class and message, which
 * the actuator shows too) are not values and are always shown.
 *
 * @param mode when values are shown
 * @param roles the roles of which a user needs one under {@code when-authorized}; empty: any authenticated user
 */
record ConsoleValues(ConsoleShowValues mode, Set<String> roles) {

    /** The mask, as JSON: the API embeds the stored values raw (S-CO-8). */
    static final String MASK = RunValues.MASK;

    ConsoleValues {
        roles = Set.copyOf(roles);
    }

    /** Whether the request's user sees the values: an authenticated principal, in a role if roles are set. */
    boolean shown(ServerRequest request) {
        return switch (mode) {
            case ALWAYS -> true;
            case NEVER -> false;
            case WHEN_AUTHORIZED -> authorized(request.servletRequest());
        };
    }

    private boolean authorized(HttpServletRequest request) {
        return request.getUserPrincipal() != null
                && (roles.isEmpty() || roles.stream().anyMatch(request::isUserInRole));
    }

    static Run run(Run run, boolean shown) {
        return RunValues.shownOrMasked(run, shown);
    }

    /** A step's result, unless it is a wait's deadline or a sleep's end: instants the engine chose, not values. */
    static ConsoleStep step(ConsoleStep step, boolean shown) {
        boolean instant = step.waiting() != null && !step.waiting().role().equals("outcome");
        if (shown || instant || step.resultJson() == null) {
            return step;
        }
        return new ConsoleStep(step.name(), step.occurrence(), step.stepId(), step.completedAt(), MASK, step.waiting());
    }

    static RunSignal signal(RunSignal signal, boolean shown) {
        return RunValues.shownOrMasked(signal, shown);
    }

    static RunDetail detail(RunDetail detail, boolean shown) {
        if (shown) {
            return detail;
        }
        return new RunDetail(
                run(detail.run(), false),
                RunValues.failureStack(detail.failureStack(), false),
                detail.attempts(),
                detail.events(),
                masked(detail.steps(), step -> step(step, false)),
                masked(detail.signals(), signal -> signal(signal, false)),
                detail.actions(),
                detail.debounce());
    }

    static <T> Page<T> page(Page<T> page, UnaryOperator<T> mask) {
        return new Page<>(page.items().stream().map(mask).toList(), page.nextCursor());
    }

    private static <T> History<T> masked(History<T> history, UnaryOperator<T> mask) {
        List<T> items = history.items().stream().map(mask).toList();
        return new History<>(items, history.total(), history.totalCapped(), history.nextCursor());
    }
}
