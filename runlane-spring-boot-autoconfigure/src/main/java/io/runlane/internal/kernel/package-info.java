/**
 * Runlane's engine: The engine's shared kernel: settings, the engine listener, the clock-free helpers every concern uses (SQL template with the schema, statements bound by position and their parameters, array and text parameters, READ COMMITTED transactions, auto-commit connections), the claimed-run snapshot and the due-run notification channel. It depends on no other engine package. Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.kernel;

import org.jspecify.annotations.NullMarked;
