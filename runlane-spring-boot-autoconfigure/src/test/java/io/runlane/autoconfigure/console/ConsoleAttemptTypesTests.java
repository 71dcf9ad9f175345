package io.runlane.autoconfigure.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.RunEventType;
import io.runlane.internal.operations.DefaultRunOperations;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The console pages attempts by the same event types as {@code runs().attempts()} derives them from (S-EX-34, issue
 * 32 item 2), and by the predicate of the index its statements read ({@code run_events_attempts_idx}).
 */
class ConsoleAttemptTypesTests {

    @Test
    @DisplayName("S-EX-34, S-CO-10: the console's attempt events are the claim, the hand-back and the engine's endings")
    void theConsoleAndTheEngineEndAttemptsByTheSameEvents() {
        Set<RunEventType> expected = EnumSet.of(RunEventType.CLAIMED, RunEventType.HANDED_BACK);
        expected.addAll(DefaultRunOperations.ATTEMPT_ENDINGS);

        assertThat(types(ConsoleHistory.ATTEMPT_EVENT_TYPES)).isEqualTo(expected);
        assertThat(DefaultRunOperations.ATTEMPT_ENDINGS)
                .doesNotContain(
                        RunEventType.SIGNAL_CONSUMED,
                        RunEventType.STEP_COMPLETED,
                        RunEventType.CANCELLATION_REQUESTED,
                        RunEventType.CREATED,
                        RunEventType.IDEMPOTENCY_KEY_RESET);
        assertThat(DefaultRunOperations.ATTEMPT_ENDINGS).containsAll(DefaultRunOperations.PARKINGS);
    }

    @Test
    @DisplayName("S-CO-10: the console's attempt events are the predicate of run_events_attempts_idx")
    void theConsolesAttemptEventsAreTheIndexPredicate() throws IOException {
        String changes;
        try (InputStream in = getClass().getResourceAsStream("/db/runlane/changes/013-run-history-pages.sql")) {
            changes = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Matcher predicate = Pattern.compile("WHERE type IN (\\([^)]*\\))").matcher(changes);

        assertThat(predicate.find()).isTrue();
        assertThat(types(predicate.group(1))).isEqualTo(types(ConsoleHistory.ATTEMPT_EVENT_TYPES));
    }

    private static Set<RunEventType> types(String sqlList) {
        return Arrays.stream(sqlList.replaceAll("[()'\\s]", "").split(","))
                .map(RunEventType::valueOf)
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(RunEventType.class)));
    }
}
