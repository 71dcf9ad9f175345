/**
 * Runlane's engine: Declared tasks (S-TD): reading {@code @Task} beans and functions into definitions, payload types and their codec (S-ID-4, S-ID-11). Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.registry;

import org.jspecify.annotations.NullMarked;
