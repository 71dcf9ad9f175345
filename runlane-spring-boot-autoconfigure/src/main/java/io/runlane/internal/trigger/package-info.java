/** Runlane's engine, trigger part. Not API: may change in any release. */
@NullMarked
package io.runlane.internal.trigger;

import org.jspecify.annotations.NullMarked;
