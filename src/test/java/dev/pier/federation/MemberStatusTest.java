package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemberStatusTest {
  private static final Instant T0 = Instant.parse("2025-01-01T10:00:00Z");

  private static MemberStatus status(boolean ready, Instant lastProbe, String version) {
    return new MemberStatus(
        ready,
        T0,
        lastProbe,
        version,
        "eu",
        List.of("eu-a", "eu-b"),
        "token",
        Instant.parse("2026-01-01T00:00:00Z"),
        ready ? "" : "probe failed: timeout");
  }

  @Test
  void theAnnotationRoundTrips() {
    MemberStatus s = status(false, T0.plusSeconds(5), "v1.20.2");
    assertThat(MemberStatus.parse(s.toJson())).isEqualTo(s);
    assertThat(s.toJson())
        .contains("\"ready\":false")
        .contains("\"version\":\"v1.20.2\"")
        .contains("\"credentialExpiry\":\"2026-01-01T00:00:00Z\"");
    MemberStatus none = new MemberStatus(true, T0, T0, null, null, null, "token", null, null);
    assertThat(MemberStatus.parse(none.toJson())).isEqualTo(none);
  }

  @Test
  void anUnreadableAnnotationIsNoStatus() {
    assertThat(MemberStatus.parse(null)).isNull();
    assertThat(MemberStatus.parse("")).isNull();
    assertThat(MemberStatus.parse("[1]")).isNull();
    assertThat(MemberStatus.parse("{\"lastProbe\":\"yesterday\"}")).isNull();
    assertThat(MemberStatus.parse("{not json")).isNull();
  }

  @Test
  void aStateChangeIsWrittenAtOnceAndTheSameStateOncePerRefresh() {
    MemberStatus shown = status(true, T0, "v1.20.2");
    assertThat(MemberStatus.worthWriting(null, shown)).isTrue();
    assertThat(MemberStatus.worthWriting(shown, status(true, T0.plusSeconds(10), "v1.20.2")))
        .isFalse();
    assertThat(MemberStatus.worthWriting(shown, status(true, T0.plusSeconds(59), "v1.20.2")))
        .isFalse();
    assertThat(MemberStatus.worthWriting(shown, status(true, T0.plusSeconds(60), "v1.20.2")))
        .isTrue();
    assertThat(MemberStatus.worthWriting(shown, status(false, T0.plusSeconds(1), "v1.20.2")))
        .isTrue();
    assertThat(MemberStatus.worthWriting(shown, status(true, T0.plusSeconds(1), "v1.21.0")))
        .isTrue();
  }
}
