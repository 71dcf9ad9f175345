package io.runlane.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The base of the console's browser tests: a headless browser opens the running application's console before each
 * test and, after it, prints what the page logged and closes. A subclass declares its {@code @SpringBootTest} with a
 * random port; its own {@code @BeforeEach} methods run after the browser has opened.
 */
abstract class ConsoleBrowserTest {

    @LocalServerPort
    private int port;

    @Autowired
    protected RunlaneTemplate runlane;

    protected ConsoleBrowser browser;

    @BeforeEach
    final void openBrowser() {
        browser = ConsoleBrowser.open("http://localhost:" + port + "/runlane/");
    }

    @AfterEach
    final void closeBrowser() {
        if (browser == null) {
            return; // skipped: no browser was found
        }
        browser.printErrors();
        browser.close();
    }

    /** Waits up to 20 s until the run has {@code status}. */
    protected void awaitStatus(UUID runId, RunStatus status) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> runlane.runs().get(runId).orElseThrow().status() == status);
    }

    /** A property of each element the selector finds, read in one script so that a refresh cannot interleave. */
    @SuppressWarnings("unchecked")
    protected List<String> texts(String selector, String property) {
        return (List<String>) ((JavascriptExecutor) browser.driver())
                .executeScript(
                        "return [...document.querySelectorAll(arguments[0])].map(element => element[arguments[1]]);",
                        selector,
                        property);
    }

    /** An attribute of each element the selector finds, read in one script. */
    @SuppressWarnings("unchecked")
    protected List<String> attributes(String selector, String attribute) {
        return (List<String>) ((JavascriptExecutor) browser.driver())
                .executeScript(
                        "return [...document.querySelectorAll(arguments[0])].map(e => e.getAttribute(arguments[1]));",
                        selector,
                        attribute);
    }

    /**
     * S-CO-3: markup shown by the page ran nothing: no alert is open, and neither the page nor {@code moreSelectors}
     * (further CSS selectors of elements markup would have made) holds an image, a script or an {@code onerror}
     * handler.
     */
    protected void assertInert(String... moreSelectors) {
        assertThatExceptionOfType(NoAlertPresentException.class)
                .isThrownBy(() -> browser.driver().switchTo().alert());
        String selectors = String.join(
                ", ",
                Stream.concat(Stream.of("#app img", "#app script"), Stream.of(moreSelectors))
                        .toList());
        assertThat(browser.driver().findElements(By.cssSelector(selectors))).isEmpty();
        assertThat(browser.driver().findElements(By.xpath("//*[@onerror]"))).isEmpty();
    }
}
