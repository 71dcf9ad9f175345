/**
 * Runlane's engine: Admission of new runs (S-TR, S-IK, S-SK, S-CP): planning a trigger, the single and batch admission statements, group commit, shared keys in a batch and the singleton conflict policies. Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.trigger;

import org.jspecify.annotations.NullMarked;
