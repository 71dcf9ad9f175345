package io.runlane.faults;

import io.runlane.BulkResult;
import io.runlane.RunQuery;
import io.runlane.RunStatus;
import io.runlane.RunlaneTemplate;
import io.runlane.TriggerOptions;
import io.runlane.TriggerResult;
import io.runlane.internal.worker.RunWorker;
import java.time.Duration;
import java.time.Instant;
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
 * The suite's view of an instance: triggers through the public API (debounced and throttled ones too), a bulk resume, readiness,
 * markers in the instance's log, and the claim answers it holds back ({@link LateClaimAnswers}).
 */
@RestController
class FaultNodeController {

    private static final Logger logger = LoggerFactory.getLogger(FaultNodeController.class);

    /** How long after its trigger a run that fails its first life is due: longer than its key's triggers take. */
    static final Duration FIRST_LIFE_DELAY = Duration.ofSeconds(5);

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
            @RequestParam(defaultValue = "false") boolean transactional,
            @RequestParam(defaultValue = "false") boolean failFirstLife) {
        EffectTask.Payload payload = new EffectTask.Payload(scenario, key, workMillis, transactional, failFirstLife);
        // A run failing its first life starts only after every trigger of its key: a trigger after the failure,
        // which released the key (S-IK-4), would create a second run.
        TriggerResult result = failFirstLife
                ? runlane.trigger(
                        EffectTask.class,
                        payload,
                        TriggerOptions.builder().delay(FIRST_LIFE_DELAY).build())
                : runlane.trigger(EffectTask.class, payload);
        return result.runId() + " " + result.outcome();
    }

    /** The exit code of an instance that {@link #triggerAndHalt} ended. */
    static final int HALTED = 137;

    /**
     * Triggers one key and, when the trigger created its run, ends this process at once, as {@code kill -9} would:
     * no shutdown hook, no hand-back, nothing more written. With a free slot the trigger's one commit stored the run
     * already claimed by this instance's worker (S-EX-36), so the run is leased to a worker that is gone before its
     * handler could start, or just after. Answers only when the trigger returned an existing run.
     */
    @PostMapping("/faults/trigger-and-halt")
    String triggerAndHalt(@RequestParam String scenario, @RequestParam String key, @RequestParam long workMillis) {
        TriggerResult result =
                runlane.trigger(EffectTask.class, new EffectTask.Payload(scenario, key, workMillis, false, false));
        if (result.created()) {
            Runtime.getRuntime().halt(HALTED);
        }
        return result.runId() + " " + result.outcome();
    }

    /**
     * Triggers the debounced task for one key with the key's {@code seq}-th payload (S-DB-1); answers {@code <run id>
     * <outcome>}, the outcome {@code CREATED} or {@code DEBOUNCED}.
     */
    @PostMapping("/faults/debounce")
    String debounce(
            @RequestParam String scenario,
            @RequestParam String key,
            @RequestParam long seq,
            @RequestParam long workMillis) {
        TriggerResult result =
                runlane.trigger(DebounceTask.class, new DebounceTask.Payload(scenario, key, seq, workMillis));
        return result.runId() + " " + result.outcome();
    }

    /**
     * Triggers the throttled task for one key with the key's {@code seq}-th payload, a run of its own (S-TH-1);
     * answers {@code <run id> <outcome>}.
     */
    @PostMapping("/faults/throttle")
    String throttle(
            @RequestParam String scenario,
            @RequestParam String key,
            @RequestParam long seq,
            @RequestParam long workMillis) {
        TriggerResult result =
                runlane.trigger(ThrottleTask.class, new ThrottleTask.Payload(scenario, key, seq, workMillis));
        return result.runId() + " " + result.outcome();
    }

    /**
     * Resumes the {@code FAILED} runs of the effect task created since {@code createdFromMillis} (epoch) that failed
     * with {@code failureCode}, in one {@code resumeAll} call (S-RV-4); answers {@code <matched> <acted> <skipped>}.
     */
    @PostMapping("/faults/resume-all")
    String resumeAll(@RequestParam String failureCode, @RequestParam long createdFromMillis) {
        BulkResult result = runlane.runs()
                .resumeAll(
                        RunQuery.builder()
                                .taskIds(EffectTask.ID)
                                .statuses(RunStatus.FAILED)
                                .createdBetween(Instant.ofEpochMilli(createdFromMillis), null)
                                .failureCodes(failureCode)
                                .build(),
                        BulkResult.MAX_RUNS);
        logger.info("resumeAll matched {} acted {} skipped {}", result.matched(), result.acted(), result.skipped());
        return result.matched() + " " + result.acted() + " " + result.skipped().size();
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
