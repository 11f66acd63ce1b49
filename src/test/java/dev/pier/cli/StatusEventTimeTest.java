package dev.pier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class StatusEventTimeTest {
  @Test
  void aCoreEventIsSeenAtItsLastTimestamp() {
    assertThat(
            Status.lastSeen(
                new EventBuilder()
                    .withFirstTimestamp("2026-01-01T00:00:00Z")
                    .withLastTimestamp("2026-01-02T00:00:00Z")
                    .build()))
        .isEqualTo(Instant.parse("2026-01-02T00:00:00Z"));
  }

  @Test
  void anEventOfTheNewApiIsSeenAtItsSeriesOrItsEventTime() {
    assertThat(
            Status.lastSeen(
                new EventBuilder()
                    .withEventTime(new MicroTime("2026-01-01T00:00:00.000001Z"))
                    .withNewSeries()
                    .withCount(3)
                    .withLastObservedTime(new MicroTime("2026-01-03T00:00:00.000002Z"))
                    .endSeries()
                    .build()))
        .isEqualTo(Instant.parse("2026-01-03T00:00:00.000002Z"));
    assertThat(
            Status.lastSeen(
                new EventBuilder()
                    .withEventTime(new MicroTime("2026-01-01T00:00:00.000001Z"))
                    .build()))
        .isEqualTo(Instant.parse("2026-01-01T00:00:00.000001Z"));
  }

  @Test
  void anEventWithoutAnyTimeHasNone() {
    assertThat(Status.lastSeen(new EventBuilder().build())).isNull();
  }
}
