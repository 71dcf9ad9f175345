/** Runlane's engine, durable steps (S-ST). Not API: may change in any release. */
@NullMarked
package io.runlane.internal.step;

import org.jspecify.annotations.NullMarked;
