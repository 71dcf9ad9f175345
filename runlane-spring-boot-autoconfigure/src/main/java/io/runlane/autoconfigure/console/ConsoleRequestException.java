package io.runlane.autoconfigure.console;

/** A console request the API cannot read (a malformed id, status, instant or body); answered with 400. */
final class ConsoleRequestException extends RuntimeException {

    ConsoleRequestException(String message) {
        super(message);
    }
}
