package io.runlane.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.runlane.internal.kernel.DueRunNotifier;
import io.runlane.testsupport.Pool;
import io.runlane.testsupport.RunlaneDatabaseTest;
import io.runlane.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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
@RunlaneDatabaseTest
class WakeUpListenerIntegrationTests {

    @Pool(size = 4)
    private static HikariDataSource dataSource;

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

    @Test
    @DisplayName("S-MO-10: a listening connection whose server stopped answering is abandoned and listening resumes")
    void hungListeningConnectionIsReplaced() throws Exception {
        String schema = "wakeups_hung";
        String applicationName = "runlane-hung-listener-test";
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabase.jdbcUrl());
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(0);
        config.addDataSourceProperty("ApplicationName", applicationName);
        JdbcTemplate admin = new JdbcTemplate(dataSource);
        AtomicInteger wakeUps = new AtomicInteger();
        try (HikariDataSource listenerPool = new HikariDataSource(config)) {
            WakeUpListener listener = new WakeUpListener(
                    listenerPool, schema, "own-notifier", wakeUps::incrementAndGet, Duration.ofMillis(200));
            Thread listening = new Thread(listener, "hung-listener-test");
            listening.start();
            Integer frozen = null;
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> wakeUps.get() >= 1);
                frozen = admin.queryForObject(
                        "SELECT pid FROM pg_stat_activity WHERE application_name = ?", Integer.class, applicationName);
                signal("STOP", frozen);
                int frozenPid = frozen;

                await().atMost(Duration.ofSeconds(20))
                        .until(() -> admin.queryForList(
                                                "SELECT pid FROM pg_stat_activity WHERE application_name = ? AND pid <> ?"
                                                        + " AND state = 'idle'",
                                                Integer.class,
                                                applicationName,
                                                frozenPid)
                                        .size()
                                == 1);
                int before = wakeUps.get();
                admin.queryForList("SELECT pg_notify('runlane_" + schema + "', 'another')");

                await().atMost(Duration.ofSeconds(10)).until(() -> wakeUps.get() > before);
            } finally {
                listener.stop();
                if (frozen != null) {
                    signal("CONT", frozen);
                    admin.queryForList("SELECT pg_terminate_backend(?)", frozen);
                }
                listening.join(10_000);
            }
        }
    }

    /** Sends a signal to a backend process of the test server, which runs on this machine. */
    private static void signal(String name, int pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Integer.toString(pid))
                .inheritIO()
                .start();
        assertThat(kill.waitFor()).as("kill -%s %d", name, pid).isZero();
    }

    private static PGNotification[] notifications(String... payloads) {
        PGNotification[] notifications = new PGNotification[payloads.length];
        for (int i = 0; i < payloads.length; i++) {
            notifications[i] = new Notification("runlane_wakeups", 0, payloads[i]);
        }
        return notifications;
    }
}
