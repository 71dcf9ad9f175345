package io.runlane.faults;

import java.time.Duration;

/** A scenario's load: triggers sent through the instances' HTTP endpoints, and how they were answered. */
interface TriggerLoad {

    /** Sends every planned trigger; returns when each got an answer or gave up {@code giveUp} after the window. */
    void run(Duration giveUp) throws InterruptedException;

    /** How many triggers got a 2xx answer. */
    int answered();

    /** How many triggers gave up without one. */
    int unanswered();

    /** How many tries were repeated after no 2xx answer. */
    int retries();
}
