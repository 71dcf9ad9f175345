package io.runlane.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Cross-checks the instances' logs against the runs' histories: a worker that warns that an attempt "lost its
 * lease; its outcome will be refused" is wrong when the run has no {@code LEASE_EXPIRED} event for that attempt (its
 * outcome was in fact accepted). Reported, not asserted: the warning misleads operators but changes no run.
 */
final class LeaseLossWarnings {

    private static final Pattern WARNING = Pattern.compile("Run ([0-9a-f-]{36}) attempt (\\d+) lost its lease");

    private static final String MARKER = "==== scenario ";

    private LeaseLossWarnings() {}

    /** The warnings logged during {@code scenario} for attempts of its runs whose lease never expired. */
    static List<String> unfounded(Path directory, String scenario, Evidence evidence) throws IOException {
        Set<String> runs = new HashSet<>();
        evidence.runs().forEach(run -> runs.add(run.id().toString()));
        Set<String> expired = new HashSet<>();
        evidence.events().stream()
                .filter(event -> event.type().equals("LEASE_EXPIRED"))
                .forEach(event -> expired.add(event.runId() + " " + attempt(event.detail())));
        List<String> unfounded = new ArrayList<>();
        try (Stream<Path> logs = Files.list(directory)) {
            for (Path log : logs.filter(path -> path.getFileName().toString().matches("node-\\d+\\.log"))
                    .sorted()
                    .toList()) {
                boolean inScenario = false;
                for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
                    int marker = line.indexOf(MARKER);
                    if (marker >= 0) {
                        inScenario = line.startsWith(scenario + " ", marker + MARKER.length());
                    }
                    Matcher matcher = WARNING.matcher(line);
                    if (inScenario
                            && matcher.find()
                            && runs.contains(matcher.group(1))
                            && !expired.contains(matcher.group(1) + " " + matcher.group(2))) {
                        unfounded.add(log.getFileName() + ": run " + UUID.fromString(matcher.group(1)) + " attempt "
                                + matcher.group(2));
                    }
                }
            }
        }
        return unfounded;
    }

    private static String attempt(String detail) {
        Matcher matcher = Pattern.compile("^attempt (\\d+)").matcher(detail);
        return matcher.find() ? matcher.group(1) : "?";
    }
}
