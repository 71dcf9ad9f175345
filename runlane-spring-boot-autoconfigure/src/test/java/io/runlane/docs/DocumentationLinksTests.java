package io.runlane.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The documentation is split into the README, {@code CONTRIBUTING.md} and one page per feature under {@code docs/}
 * (issue 27, item 7), linked to each other by relative links: each such link names a file that exists and, when it
 * names a heading or an anchor of a Markdown file, one that the file has, so moving text never leaves a link
 * dangling.
 */
class DocumentationLinksTests {

    private static final Path ROOT = Path.of("..");

    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");

    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");

    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

    @Test
    @DisplayName("Issue 27.7: every relative link of the README, CONTRIBUTING.md and docs/*.md names an existing file")
    void relativeLinksNameExistingFiles() throws IOException {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path document : documents()) {
            for (String target : relativeLinks(document)) {
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                if (!file.isEmpty()) {
                    checked++;
                    if (!Files.exists(document.getParent().resolve(file))) {
                        broken.add(document + ": " + target);
                    }
                }
            }
        }

        assertThat(broken).as("links to files that do not exist").isEmpty();
        assertThat(checked).as("relative links to files").isGreaterThan(50);
    }

    @Test
    @DisplayName("Issue 27.7: every link to a heading or anchor of a Markdown file names one the file has")
    void linksToHeadingsNameExistingHeadings() throws IOException {
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        int checked = 0;
        for (Path document : documents()) {
            for (String target : relativeLinks(document)) {
                int hash = target.indexOf('#');
                if (hash < 0) {
                    continue;
                }
                String file = target.substring(0, hash);
                Path linked = file.isEmpty() ? document : document.getParent().resolve(file);
                if (!linked.toString().endsWith(".md") || !Files.isRegularFile(linked)) {
                    continue;
                }
                checked++;
                Set<String> known = anchors.computeIfAbsent(linked.normalize(), DocumentationLinksTests::anchors);
                if (!known.contains(target.substring(hash + 1))) {
                    broken.add(document + ": " + target);
                }
            }
        }

        assertThat(broken).as("links to headings or anchors that do not exist").isEmpty();
        assertThat(checked).as("links to headings or anchors").isGreaterThan(20);
    }

    @Test
    @DisplayName("Issue 27.7: the heading anchors are formed as GitHub forms them")
    void headingAnchorsAreFormedAsGitHubFormsThem() {
        assertThat(slug("PostgreSQL for tests: Testcontainers, Docker Compose, embedded"))
                .isEqualTo("postgresql-for-tests-testcontainers-docker-compose-embedded");
        assertThat(slug("`step` and [the console](console.md), *briefly*")).isEqualTo("step-and-the-console-briefly");
        assertThat(slug("Native images and AOT")).isEqualTo("native-images-and-aot");
    }

    /** The README, CONTRIBUTING.md and every page of docs/. */
    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md")));
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
            pages.filter(page -> page.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        assertThat(documents).hasSizeGreaterThan(10);
        return documents;
    }

    /** The targets of the document's links outside code, leaving out absolute URLs. */
    private static List<String> relativeLinks(Path document) {
        List<String> targets = new ArrayList<>();
        for (String line : prose(document)) {
            Matcher link = LINK.matcher(INLINE_CODE.matcher(line).replaceAll("code"));
            while (link.find()) {
                String target = link.group(1);
                if (!SCHEME.matcher(target).find()) {
                    targets.add(target);
                }
            }
        }
        return targets;
    }

    /** The anchors a Markdown file offers: its headings' slugs, as GitHub numbers repeats, and HTML anchors. */
    private static Set<String> anchors(Path file) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> repeats = new HashMap<>();
        for (String line : prose(file)) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(1));
                int seen = repeats.merge(slug, 1, Integer::sum);
                anchors.add(seen == 1 ? slug : slug + "-" + (seen - 1));
            }
            HTML_ANCHOR.matcher(line).results().forEach(anchor -> anchors.add(anchor.group(1)));
        }
        return anchors;
    }

    /** A heading's anchor as GitHub forms it from the rendered text. */
    private static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                .replace("`", "")
                .replace("*", "")
                .toLowerCase(Locale.ROOT);
        return text.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    /** The lines of a Markdown file outside fenced code blocks. */
    private static List<String> prose(Path file) {
        List<String> lines = new ArrayList<>();
        boolean fenced = false;
        for (String line : read(file).split("\n", -1)) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced) {
                lines.add(line);
            }
        }
        return lines;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
