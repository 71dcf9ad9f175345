package io.runlane.internal.wait;

/**
 * Thrown on the handler's thread by a sleep or await that has to wait: it unwinds the handler so that the worker can
 * park the run as {@code WAITING} ({@link RunParking}).
 *
 * <p>It is an {@link Error}, not an exception, so that the usual {@code catch (Exception ex)} in user code lets it
 * through; the worker also remembers the request on the attempt, so a handler that swallows it anyway still parks
 * rather than completing a run that never finished. It carries no stack trace: it is control flow, not a failure.
 */
public final class AttemptSuspended extends Error {

    private static final long serialVersionUID = 1L;

    private final transient WaitRequest request;

    public AttemptSuspended(WaitRequest request) {
        super(request.reason(), null, false, false);
        this.request = request;
    }

    public WaitRequest request() {
        return request;
    }
}
