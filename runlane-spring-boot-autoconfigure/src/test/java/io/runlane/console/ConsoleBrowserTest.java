package io.runlane.console;

import io.runlane.RunlaneTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
}
