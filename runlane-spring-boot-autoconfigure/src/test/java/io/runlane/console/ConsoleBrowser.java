package io.runlane.console;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A headless Chromium driven by Selenium for the console's browser tests: Debian's {@code chromium} and {@code
 * chromium-driver} (or the binaries named by {@code RUNLANE_CHROME} and {@code RUNLANE_CHROMEDRIVER}). Without them
 * the tests are skipped with a message saying what to install; Selenium Manager is not used, since it downloads.
 */
final class ConsoleBrowser implements AutoCloseable {

    static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    private static final List<String> BROWSERS = List.of(
            "/usr/bin/chromium",
            "/usr/bin/chromium-browser",
            "/usr/bin/google-chrome",
            "/usr/bin/google-chrome-stable");

    private static final List<String> DRIVERS = List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");

    private final WebDriver driver;

    private final String baseUrl;

    private ConsoleBrowser(WebDriver driver, String baseUrl) {
        this.driver = driver;
        this.baseUrl = baseUrl;
    }

    /** Starts a browser for the console at {@code baseUrl}, or skips the calling test when none is installed. */
    static ConsoleBrowser open(String baseUrl) {
        Optional<String> browser = find("RUNLANE_CHROME", BROWSERS);
        Optional<String> driver = find("RUNLANE_CHROMEDRIVER", DRIVERS);
        assumeTrue(
                browser.isPresent() && driver.isPresent(),
                "Skipped: no Chromium and chromedriver found (apt-get install -y chromium chromium-driver, or set"
                        + " RUNLANE_CHROME and RUNLANE_CHROMEDRIVER)");
        ChromeOptions options = new ChromeOptions()
                .setBinary(browser.get())
                .addArguments(
                        "--headless=new",
                        "--no-sandbox",
                        "--disable-dev-shm-usage",
                        "--disable-gpu",
                        "--window-size=1366,768",
                        "--lang=en-GB",
                        "--force-device-scale-factor=1");
        options.setCapability("goog:loggingPrefs", java.util.Map.of("browser", "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(Path.of(driver.get()).toFile())
                .build();
        return new ConsoleBrowser(new ChromeDriver(service, options), baseUrl);
    }

    private static Optional<String> find(String variable, List<String> candidates) {
        String configured = System.getenv(variable);
        return Stream.concat(Stream.ofNullable(configured), candidates.stream())
                .filter(path -> Files.isExecutable(Path.of(path)))
                .findFirst();
    }

    WebDriver driver() {
        return driver;
    }

    /** Opens a console route such as {@code #/runs?status=FAILED}. */
    void go(String route) {
        driver.get(baseUrl + route);
    }

    /** Waits for a condition; pages re-render as they refresh, so an element gone stale is looked up again. */
    <T> T await(Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, Duration.ofSeconds(15))
                .ignoring(StaleElementReferenceException.class)
                .until(condition);
    }

    /** Clicks the element, finding it again when a refresh replaced it. */
    void click(By by) {
        await(d -> {
            d.findElement(by).click();
            return true;
        });
    }

    /** Types into the element, finding it again when a refresh replaced it. */
    void type(By by, String text) {
        await(d -> {
            d.findElement(by).sendKeys(text);
            return true;
        });
    }

    WebElement awaitElement(By by) {
        return await(d -> d.findElements(by).stream()
                .filter(WebElement::isDisplayed)
                .findFirst()
                .orElse(null));
    }

    void awaitText(By by, String text) {
        new WebDriverWait(driver, Duration.ofSeconds(15))
                .ignoring(StaleElementReferenceException.class)
                .withMessage(() -> by + " never showed '" + text + "'; it shows "
                        + driver.findElements(by).stream()
                                .map(WebElement::getText)
                                .toList())
                .until(d -> d.findElements(by).stream()
                        .anyMatch(element -> element.getText().contains(text)));
    }

    /** Saves what the browser shows as {@code target/console-screenshots/<name>.png}. */
    Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path file = SCREENSHOTS.resolve(name + ".png");
            Files.write(file, ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
            return file;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Prints the browser's console errors, which say why a page did not render. */
    void printErrors() {
        driver.manage().logs().get("browser").getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue())
                .forEach(entry -> System.err.println("Browser console: " + entry.getMessage()));
    }

    /** Runs {@code script} in every page before the page's own scripts (a Chrome DevTools command). */
    void beforeEveryPage(String script) {
        ((ChromeDriver) driver)
                .executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", java.util.Map.of("source", script));
    }

    @Override
    public void close() {
        driver.quit();
    }
}
