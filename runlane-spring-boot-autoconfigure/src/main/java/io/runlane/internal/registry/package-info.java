/** Runlane's engine, registry part. Not API: may change in any release. */
@NullMarked
package io.runlane.internal.registry;

import org.jspecify.annotations.NullMarked;
