package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.runlane.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.core.Notification;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A worker is woken by other instances' notifications, not by its own instance's: that instance woke it in-process
 * already (S-EX-1), and a second wake-up would only cost a claim that finds nothing (issue 16).
 */
class WakeUpListenerIntegrationTests {

    private static HikariDataSource dataSource;

    @BeforeAll
    static void open() {
        dataSource = TestDatabase.newDataSource(4);
    }

    @AfterAll
    static void close() {
        dataSource.close();
    }

    @Test
    @DisplayName("Issue 16: a notifier's notifications carry its origin")
    void notificationsNameTheirNotifier() throws Exception {
        String schema = "wakeups_origin";
        DueRunNotifier notifier = new DueRunNotifier(dataSource, schema);
        List<String> payloads = new ArrayList<>();
        try (Connection listening = dataSource.getConnection()) {
            listening.setAutoCommit(true);
            try (Statement statement = listening.createStatement()) {
                statement.execute("LISTEN runlane_" + schema);
            }
            notifier.runBecameDue();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                PGNotification[] received = listening.unwrap(PGConnection.class).getNotifications(100);
                for (PGNotification notification : received == null ? new PGNotification[0] : received) {
                    payloads.add(notification.getParameter());
                }
                return !payloads.isEmpty();
            });
        } finally {
            notifier.stop();
        }
        assertThat(payloads).containsOnly(notifier.origin());
    }

    @Test
    @DisplayName("Issue 16: only notifications from another notifier wake the worker")
    void onlyOtherNotifiersWake() {
        String own = "own-notifier";

        assertThat(WakeUpListener.fromElsewhere(notifications(own, own), own)).isFalse();
        assertThat(WakeUpListener.fromElsewhere(notifications(own, "another"), own))
                .isTrue();
        assertThat(WakeUpListener.fromElsewhere(notifications(""), own))
                .as("a completion that woke waiting runs notifies with an empty payload")
                .isTrue();
    }

    @Test
    @DisplayName("Issue 16: the listener wakes the worker for another instance's notification")
    void wakesForAnotherInstance() {
        String schema = "wakeups_listener";
        AtomicInteger wakeUps = new AtomicInteger();
        WakeUpListener listener = new WakeUpListener(dataSource, schema, "own-notifier", wakeUps::incrementAndGet);
        Thread listening = new Thread(listener, "wake-up-listener-test");
        listening.start();
        try {
            // the listener wakes the worker once when it starts listening: runs may have been missed before
            await().atMost(Duration.ofSeconds(10)).until(() -> wakeUps.get() >= 1);
            new JdbcTemplate(dataSource).queryForList("SELECT pg_notify('runlane_" + schema + "', 'another')");

            await().atMost(Duration.ofSeconds(10)).until(() -> wakeUps.get() >= 2);
        } finally {
            listener.stop();
        }
    }

    private static PGNotification[] notifications(String... payloads) {
        PGNotification[] notifications = new PGNotification[payloads.length];
        for (int i = 0; i < payloads.length; i++) {
            notifications[i] = new Notification("runlane_wakeups", 0, payloads[i]);
        }
        return notifications;
    }
}
