package io.runlane.autoconfigure.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.util.HtmlUtils;

/**
 * The console's single page, {@code index.html}. When Spring Security guards the application, the page carries its
 * CSRF token as {@code <meta name="runlane-csrf-header">} and {@code <meta name="runlane-csrf-token">} for the
 * scripts to send with actions (S-CO-2); Spring Security is not a dependency, so the token is read as a bean from
 * the request attribute it sets. A strict Content-Security-Policy keeps the page to its own scripts and styles, a
 * second line of defence behind rendering every stored string as text (S-CO-3).
 */
final class ConsolePage {

    static final String LOCATION = "META-INF/runlane-console/";

    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
            + "frame-ancestors 'self'";

    private static final String CSRF_PLACEHOLDER = "<!-- runlane:csrf -->";

    private static final String CSRF_ATTRIBUTE = "_csrf";

    private final String html;

    private ConsolePage(String html) {
        this.html = html;
    }

    static ConsolePage load() {
        try (InputStream in = new ClassPathResource(LOCATION + "index.html").getInputStream()) {
            return new ConsolePage(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException ex) {
            throw new UncheckedIOException("The console's index.html is missing from the classpath", ex);
        }
    }

    ServerResponse index(ServerRequest request) {
        return ServerResponse.ok()
                .contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
                .cacheControl(CacheControl.noStore())
                .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                .header("X-Content-Type-Options", "nosniff")
                .body(html.replace(
                        CSRF_PLACEHOLDER,
                        csrfMeta(request.attribute(CSRF_ATTRIBUTE).orElse(null))));
    }

    private static String csrfMeta(@Nullable Object token) {
        if (token == null) {
            return "";
        }
        BeanWrapperImpl bean = new BeanWrapperImpl(token);
        if (!bean.isReadableProperty("headerName") || !bean.isReadableProperty("token")) {
            return "";
        }
        return "<meta name=\"runlane-csrf-header\" content=\""
                + HtmlUtils.htmlEscape(String.valueOf(bean.getPropertyValue("headerName")))
                + "\">\n    <meta name=\"runlane-csrf-token\" content=\""
                + HtmlUtils.htmlEscape(String.valueOf(bean.getPropertyValue("token")))
                + "\">";
    }
}
