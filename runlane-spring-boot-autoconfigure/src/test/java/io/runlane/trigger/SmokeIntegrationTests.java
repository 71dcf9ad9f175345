package io.runlane.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import io.runlane.TriggerOutcome;
import io.runlane.TriggerResult;
import io.runlane.testsupport.TestDatabase;
import io.runlane.testsupport.TestRunlane;
import io.runlane.testsupport.TestTasks;
import io.runlane.testsupport.TestTasks.RefreshCustomer;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

class SmokeIntegrationTests {

    @Test
    void triggersTwice() {
        try (HikariDataSource ds = TestDatabase.newDataSource(4)) {
            TestRunlane runlane = TestRunlane.start(ds, TestDatabase.freshSchema(ds, "smoke"), TestTasks.all());
            TriggerResult first = runlane.template().trigger(RefreshCustomer.class, new RefreshCustomer.Payload("c-1"));
            TriggerResult second = runlane.template().trigger("customers.refresh", new RefreshCustomer.Payload("c-1"));
            assertThat(first.outcome()).isEqualTo(TriggerOutcome.CREATED);
            assertThat(second.outcome()).isEqualTo(TriggerOutcome.RETURNED_EXISTING);
            assertThat(second.runId()).isEqualTo(first.runId());
            System.out.println(first);
            System.out.println(runlane.template().runs().events(first.runId()));
        }
    }
}
