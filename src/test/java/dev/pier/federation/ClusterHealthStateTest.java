package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ClusterHealthStateTest {
  @Test
  void startsUnready() {
    assertThat(new ClusterHealthState(1, 3).ready()).isFalse();
  }

  @Test
  void defaultsOneSuccessThreeFailures() {
    ClusterHealthState s = new ClusterHealthState(1, 3);
    assertThat(s.record(true)).isTrue();
    assertThat(s.ready()).isTrue();
    assertThat(s.record(true)).isFalse();
    assertThat(s.record(false)).isFalse();
    assertThat(s.record(false)).isFalse();
    assertThat(s.ready()).isTrue();
    assertThat(s.record(false)).isTrue();
    assertThat(s.ready()).isFalse();
    assertThat(s.record(false)).isFalse();
    assertThat(s.ready()).isFalse();
    assertThat(s.record(true)).isTrue();
    assertThat(s.ready()).isTrue();
  }

  @Test
  void aSuccessResetsTheFailureRun() {
    ClusterHealthState s = new ClusterHealthState(1, 3);
    s.record(true);
    s.record(false);
    s.record(false);
    assertThat(s.record(true)).isFalse();
    assertThat(s.record(false)).isFalse();
    assertThat(s.record(false)).isFalse();
    assertThat(s.ready()).isTrue();
    assertThat(s.record(false)).isTrue();
    assertThat(s.ready()).isFalse();
  }

  @Test
  void unreadyBeforeAnyProbeStaysUnreadyOnFailures() {
    ClusterHealthState s = new ClusterHealthState(1, 3);
    for (int i = 0; i < 5; i++) {
      assertThat(s.record(false)).isFalse();
    }
    assertThat(s.ready()).isFalse();
  }

  @Test
  void severalSuccessesNeededAndAFailureResetsThem() {
    ClusterHealthState s = new ClusterHealthState(3, 2);
    assertThat(s.record(true)).isFalse();
    assertThat(s.record(true)).isFalse();
    assertThat(s.record(false)).isFalse();
    assertThat(s.record(true)).isFalse();
    assertThat(s.record(true)).isFalse();
    assertThat(s.ready()).isFalse();
    assertThat(s.record(true)).isTrue();
    assertThat(s.ready()).isTrue();
    assertThat(s.record(false)).isFalse();
    assertThat(s.record(true)).isFalse();
    assertThat(s.record(false)).isFalse();
    assertThat(s.record(false)).isTrue();
    assertThat(s.ready()).isFalse();
  }

  @Test
  void oneAndOneFlipsOnEveryChange() {
    ClusterHealthState s = new ClusterHealthState(1, 1);
    assertThat(s.record(true)).isTrue();
    assertThat(s.record(false)).isTrue();
    assertThat(s.ready()).isFalse();
    assertThat(s.record(true)).isTrue();
    assertThat(s.ready()).isTrue();
  }

  @Test
  void longRunsDoNotOverflowOrDelayTheNextChange() {
    ClusterHealthState s = new ClusterHealthState(2, 2);
    for (int i = 0; i < 1000; i++) {
      s.record(true);
    }
    assertThat(s.record(false)).isFalse();
    assertThat(s.record(false)).isTrue();
  }

  @Test
  void thresholdsBelowOneAreRefused() {
    assertThatThrownBy(() -> new ClusterHealthState(0, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("success 0");
    assertThatThrownBy(() -> new ClusterHealthState(1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("failure 0");
  }
}
