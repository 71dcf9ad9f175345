/** Runlane's engine, jdbc part. Not API: may change in any release. */
@NullMarked
package io.runlane.internal.jdbc;

import org.jspecify.annotations.NullMarked;
