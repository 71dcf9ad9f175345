/**
 * Runlane's engine: A run's lifecycle rules as SQL, shared by every statement that changes a run: who owns an idempotency key ({@link io.runlane.internal.lifecycle.KeyOwnership}), what follows every transition (events, successor hand-back, wake-ups: {@link io.runlane.internal.lifecycle.TransitionSql}), how a run row reads, and the transitions that belong to no attempt (finish, cancel, supersede, S-RL, S-CA). Not API: may change in any release.
 */
@NullMarked
package io.runlane.internal.lifecycle;

import org.jspecify.annotations.NullMarked;
