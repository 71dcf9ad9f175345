package io.runlane.faults;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * One instance of the fault suite's cluster: a web application with one Runlane task whose handler writes an effect
 * log. {@link FaultInjectionIT} starts several of these as separate JVMs sharing one PostgreSQL, and kills, stops,
 * partitions, slows and skews them.
 */
@SpringBootApplication
public class FaultNodeApplication {

    public static void main(String[] args) {
        SpringApplication.run(FaultNodeApplication.class, args);
    }
}
