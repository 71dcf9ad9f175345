package io.runlane.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A clock offset for one instance's process, applied with libfaketime (Debian package {@code faketime}) preloaded
 * into that process only. Both the wall clock and the monotonic clock are offset: the JVM's timed waits measure
 * intervals on the monotonic clock, which an offset leaves intact, whereas leaving it unfaked
 * ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}) makes every timed wait of the JVM return at once and the process spin.
 */
record ClockSkew(Path library, Duration offset) {

    private static final List<Path> LIBRARIES = List.of(
            Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/faketime/libfaketime.so.1"),
            Path.of("/usr/local/lib/faketime/libfaketime.so.1"));

    /**
     * The offset with the installed libfaketime, or empty when it is not installed. The system property {@code
     * faults.libfaketime} names the library where it is installed elsewhere.
     */
    static Optional<ClockSkew> of(Duration offset) {
        String configured = System.getProperty("faults.libfaketime", "");
        List<Path> candidates = configured.isBlank() ? LIBRARIES : List.of(Path.of(configured));
        return candidates.stream().filter(Files::isReadable).findFirst().map(library -> new ClockSkew(library, offset));
    }

    Map<String, String> environment() {
        long minutes = offset.toMinutes();
        return Map.of("LD_PRELOAD", library.toString(), "FAKETIME", (minutes >= 0 ? "+" : "") + minutes + "m");
    }

    @Override
    public String toString() {
        return (offset.isNegative() ? "" : "+") + offset.toMinutes() + " min";
    }
}
