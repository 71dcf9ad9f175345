package io.runlane.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/guarantees.md} states every rule that users meet (issue 15, item 16): each id the README,
 * {@code CONTRIBUTING.md}, a page of {@code docs/} (the contract additions among them) or an error message cites has
 * an anchor there, so a link never dangles.
 */
class GuaranteesDocumentTests {

    private static final Pattern RULE_ID = Pattern.compile("S-[A-Z]{2}-\\d+");

    private static final Pattern ANCHOR =
            Pattern.compile("<a id=\"(s-[a-z]{2}-\\d+)\"></a>\\*\\*(S-[A-Z]{2}-\\d+)\\*\\*");

    @Test
    @DisplayName(
            "Issue 15.16: every rule id of the README, CONTRIBUTING.md and the docs pages is stated in guarantees.md")
    void documentedIdsAreStated() throws IOException {
        Set<String> stated = stated();
        List<Path> documents = documents();

        assertThat(documents)
                .contains(
                        Path.of("..", "README.md"),
                        Path.of("..", "docs", "contract-additions.md"),
                        Path.of("..", "docs", "keys-and-conflicts.md"));
        for (Path document : documents) {
            assertThat(ids(read(document)))
                    .as("the rule ids %s cites", document)
                    .isSubsetOf(stated);
        }
        assertThat(ids(read(Path.of("..", "README.md"))))
                .as("the README's rule ids")
                .isNotEmpty();
    }

    @Test
    @DisplayName("Issue 15.16: every rule id an error message or the code cites is stated in guarantees.md")
    void idsCitedByTheCodeAreStated() throws IOException {
        Set<String> cited = new TreeSet<>();
        try (Stream<Path> sources = Files.walk(Path.of("src", "main", "java"))) {
            sources.filter(path -> path.toString().endsWith(".java")).forEach(path -> cited.addAll(ids(read(path))));
        }

        assertThat(cited).isNotEmpty().isSubsetOf(stated());
    }

    @Test
    @DisplayName("Issue 15.16: each rule's anchor matches its id, so links such as #s-ik-7 resolve")
    void anchorsMatchTheirIds() throws IOException {
        Matcher anchors = ANCHOR.matcher(Files.readString(Path.of("..", "docs", "guarantees.md")));
        int count = 0;
        while (anchors.find()) {
            assertThat(anchors.group(1)).isEqualTo(anchors.group(2).toLowerCase(java.util.Locale.ROOT));
            count++;
        }
        assertThat(count).isGreaterThan(100);
    }

    /** The README, CONTRIBUTING.md and every page of docs/ but guarantees.md itself. */
    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(Path.of("..", "README.md"), Path.of("..", "CONTRIBUTING.md")));
        try (Stream<Path> pages = Files.list(Path.of("..", "docs"))) {
            pages.filter(page -> page.toString().endsWith(".md"))
                    .filter(page -> !page.getFileName().toString().equals("guarantees.md"))
                    .sorted()
                    .forEach(documents::add);
        }
        return documents;
    }

    private static Set<String> stated() throws IOException {
        Set<String> stated = new TreeSet<>();
        Matcher anchors = ANCHOR.matcher(Files.readString(Path.of("..", "docs", "guarantees.md")));
        while (anchors.find()) {
            stated.add(anchors.group(2));
        }
        return stated;
    }

    private static Set<String> ids(String text) {
        Set<String> ids = new TreeSet<>();
        RULE_ID.matcher(text).results().forEach(id -> ids.add(id.group()));
        return ids;
    }

    private static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
