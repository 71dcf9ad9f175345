package io.runlane.faults;

import io.runlane.RunlaneTemplate;
import io.runlane.TriggerResult;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The suite's view of an instance: triggers through the public API, readiness, markers in the instance's log, and
 * the claim answers it holds back ({@link LateClaimAnswers}).
 */
@RestController
class FaultNodeController {

    private static final Logger logger = LoggerFactory.getLogger(FaultNodeController.class);

    private final RunlaneTemplate runlane;

    private final RunWorker worker;

    private final LateClaimAnswers lateClaims;

    private final AtomicBoolean ready = new AtomicBoolean();

    FaultNodeController(RunlaneTemplate runlane, RunWorker worker, LateClaimAnswers lateClaims) {
        this.runlane = runlane;
        this.worker = worker;
        this.lateClaims = lateClaims;
    }

    @EventListener(ApplicationReadyEvent.class)
    void started() {
        ready.set(true);
    }

    /** Triggers one key; answers {@code <run id> <outcome>} as plain text. */
    @PostMapping("/faults/trigger")
    String trigger(
            @RequestParam String scenario,
            @RequestParam String key,
            @RequestParam long workMillis,
            @RequestParam(defaultValue = "false") boolean transactional) {
        TriggerResult result =
                runlane.trigger(EffectTask.class, new EffectTask.Payload(scenario, key, workMillis, transactional));
        return result.runId() + " " + result.outcome();
    }

    /** 200 once the application, its worker included, has started. */
    @GetMapping("/faults/ready")
    ResponseEntity<String> ready() {
        return ready.get()
                ? ResponseEntity.ok("ready")
                : ResponseEntity.status(503).body("starting");
    }

    /** Writes a marker, so an instance's log shows where each scenario begins. */
    @PostMapping("/faults/mark")
    String mark(@RequestParam String text) {
        logger.info("==== {} ====", text);
        return "ok";
    }

    /**
     * Holds the answer of the next claim that claims a run planned to work at least {@code minWorkMillis}, for at
     * most {@code longestMillis}.
     */
    @PostMapping("/faults/late-claim")
    String holdNextClaim(@RequestParam long longestMillis, @RequestParam long minWorkMillis) {
        lateClaims.arm(Duration.ofMillis(longestMillis), minWorkMillis);
        return "armed";
    }

    /** {@code <state> <worker id>}: the state of the hold ({@link LateClaimAnswers#state}) and whose claims it holds. */
    @GetMapping("/faults/late-claim")
    String lateClaim() {
        return lateClaims.state() + " " + worker.workerId();
    }

    /** Delivers a held claim answer, or disarms a hold that caught nothing. */
    @PostMapping("/faults/late-claim/release")
    String releaseLateClaim() {
        lateClaims.release();
        return "released";
    }
}
