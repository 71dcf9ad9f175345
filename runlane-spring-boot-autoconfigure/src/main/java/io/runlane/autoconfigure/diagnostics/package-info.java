/**
 * Failure analyzers that turn Runlane's start-up failures into Boot's "APPLICATION FAILED TO START" report: what is
 * wrong, where it was declared or set, and how to fix it.
 */
@NullMarked
package io.runlane.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
