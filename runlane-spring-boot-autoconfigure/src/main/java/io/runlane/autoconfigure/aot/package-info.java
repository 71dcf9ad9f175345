/**
 * Ahead-of-time support: the runtime hints Runlane itself needs (its changelog, its console, the JSON of its read
 * models, the proxy its connections use), and binding hints for the payload and result types of the application's
 * {@code @Task} classes, so that a native image of the application needs nothing added for Runlane.
 */
@NullMarked
package io.runlane.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;
