/**
 * The Runlane web console (S-CO): static pages served from {@code META-INF/runlane-console/} and a small JSON API
 * under {@code runlane.console.path}, built on the engine's public read and operator APIs. Wired only by
 * {@link io.runlane.autoconfigure.console.RunlaneConsoleAutoConfiguration}; nothing here is component-scanned.
 */
@NullMarked
package io.runlane.autoconfigure.console;

import org.jspecify.annotations.NullMarked;
