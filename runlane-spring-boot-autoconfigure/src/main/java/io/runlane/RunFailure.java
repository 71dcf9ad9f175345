package io.runlane;

import org.jspecify.annotations.Nullable;

/**
 * Why a run's last attempt failed (S-EX-5).
 *
 * @param code a stable error code such as {@code exception}, {@code lease_expired} or {@code payload_invalid}
 * @param exceptionClass the exception's class name, when an exception caused it
 * @param message the truncated message
 */
public record RunFailure(
        String code,
        @Nullable String exceptionClass,
        @Nullable String message) {}
