package io.runlane.internal.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** When triggers are grouped (S-TR-13): while most recent triggers create runs. */
class CreatedShareTests {

    @Test
    @DisplayName("S-TR-13: grouping starts on, stops after a run of duplicates, and resumes once creations dominate")
    void followsTheRecentShareOfCreations() {
        CreatedShare share = new CreatedShare();
        assertThat(share.worthGrouping()).isTrue();

        for (int i = 0; i < 40; i++) {
            share.record(false);
        }
        assertThat(share.worthGrouping()).isFalse();

        for (int i = 0; i < 40; i++) {
            share.record(true);
        }
        assertThat(share.worthGrouping()).isTrue();
    }

    @Test
    @DisplayName("S-TR-13: a few duplicates among creations keep grouping on")
    void aFewDuplicatesKeepGrouping() {
        CreatedShare share = new CreatedShare();
        for (int i = 0; i < 200; i++) {
            share.record(i % 4 != 0);
        }
        assertThat(share.worthGrouping()).isTrue();
    }
}
