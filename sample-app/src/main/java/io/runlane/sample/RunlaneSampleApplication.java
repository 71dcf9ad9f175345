package io.runlane.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A web application that triggers Runlane tasks from HTTP requests. */
@SpringBootApplication
public class RunlaneSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(RunlaneSampleApplication.class, args);
    }
}
