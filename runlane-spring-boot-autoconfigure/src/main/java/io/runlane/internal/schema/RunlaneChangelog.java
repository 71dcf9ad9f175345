package io.runlane.internal.schema;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The files of Runlane's changelog as the jar ships them, read from {@code changelog-master.xml} so that the list
 * cannot drift from what Liquibase applies: each file's name, its changesets ({@code author:id}) and the checksum
 * Flyway records for a copy of it.
 */
public final class RunlaneChangelog {

    /** The folder of the master changelog; includes are relative to it. */
    private static final String BASE = "db/runlane/";

    private static final Pattern INCLUDE = Pattern.compile("<include\\s+file=\"([^\"]+)\"");

    private static final Pattern CHANGESET = Pattern.compile("^--\\s*changeset\\s+([^:\\s]+):(\\S+)");

    private final List<ChangelogFile> files;

    private RunlaneChangelog(List<ChangelogFile> files) {
        this.files = List.copyOf(files);
    }

    /** Reads the changelog from the class path of this class. */
    public static RunlaneChangelog load() {
        ClassLoader classLoader = RunlaneChangelog.class.getClassLoader();
        List<ChangelogFile> files = new ArrayList<>();
        Matcher include = INCLUDE.matcher(String.join("\n", lines(classLoader, RunlaneSchemaInitializer.CHANGELOG)));
        while (include.find()) {
            String path = BASE + include.group(1);
            List<String> lines = lines(classLoader, path);
            List<String> changesets = new ArrayList<>();
            for (String line : lines) {
                Matcher changeset = CHANGESET.matcher(line);
                if (changeset.find()) {
                    changesets.add(changeset.group(1) + ":" + changeset.group(2));
                }
            }
            files.add(new ChangelogFile(path.substring(path.lastIndexOf('/') + 1), changesets, flywayChecksum(lines)));
        }
        return new RunlaneChangelog(files);
    }

    /** The files in the order they are applied. */
    public List<ChangelogFile> files() {
        return files;
    }

    /**
     * Flyway's checksum of a migration: a CRC32 over the UTF-8 bytes of each line without its line break (the
     * placeholders are replaced only when the script runs, so the checksum is the same for every schema name).
     */
    private static int flywayChecksum(List<String> lines) {
        CRC32 crc = new CRC32();
        for (String line : lines) {
            crc.update(line.getBytes(StandardCharsets.UTF_8));
        }
        return (int) crc.getValue();
    }

    private static List<String> lines(ClassLoader classLoader, String path) {
        try (InputStream in = classLoader.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Runlane's changelog file " + path + " is missing from the class path");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            List<String> lines = new ArrayList<>(reader.lines().toList());
            if (!lines.isEmpty() && lines.get(0).startsWith("\uFEFF")) {
                lines.set(0, lines.get(0).substring(1));
            }
            return lines;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * One file of the changelog.
     *
     * @param name the file name, such as {@code 001-foundation.sql}
     * @param changesets its changesets as {@code author:id}
     * @param flywayChecksum the checksum Flyway stores for an unchanged copy
     */
    public record ChangelogFile(String name, List<String> changesets, int flywayChecksum) {

        /** The words of the name without the number, such as {@code implicit_creation_event}. */
        public String stem() {
            String base = name.substring(0, name.lastIndexOf('.'));
            return base.substring(base.indexOf('-') + 1).replace('-', '_');
        }
    }
}
