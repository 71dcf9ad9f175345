package io.runlane;

/** A task's key resolver threw; the cause is the resolver's exception and nothing was written (S-ID-3). */
public class KeyResolverException extends RunlaneException {

    public KeyResolverException(String taskId, String resolver, Throwable cause) {
        super("key_resolver_failed", resolver + " resolver of task '" + taskId + "' failed: " + cause, cause);
    }
}
