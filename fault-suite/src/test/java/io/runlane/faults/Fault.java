package io.runlane.faults;

import java.util.Random;

/** One fault class injected repeatedly while a scenario's load runs; it restores what it broke before returning. */
@FunctionalInterface
interface Fault {

    void inject(FaultContext context, Random random) throws Exception;
}
