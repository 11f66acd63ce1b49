package dev.pier.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** pier_member_credential_expiry_timestamp_seconds{cluster}: set, moved and removed per member. */
class MemberCredentialExpiryMetricTest {
  private static final String NAME = "pier.member.credential.expiry.timestamp";

  private final PrometheusMeterRegistry registry = PierMetrics.newRegistry();
  private final PierMetrics metrics = new PierMetrics(registry);

  private Gauge gauge(String cluster) {
    return registry.find(NAME).tag("cluster", cluster).gauge();
  }

  @Test
  void aMembersExpiryIsAGaugeInUnixSecondsNamedAsDocumented() {
    metrics.setMemberCredentialExpiry("east", Instant.parse("2026-01-01T00:00:00Z"));
    metrics.setMemberCredentialExpiry("west", Instant.parse("2026-01-02T00:00:00.500Z"));

    assertThat(gauge("east").value()).isEqualTo(1_767_225_600.0);
    assertThat(gauge("west").value()).isEqualTo(1_767_312_000.5);
    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("# HELP pier_member_credential_expiry_timestamp_seconds ")
        .contains("# TYPE pier_member_credential_expiry_timestamp_seconds gauge")
        .contains("pier_member_credential_expiry_timestamp_seconds{cluster=\"east\"} ")
        .contains("pier_member_credential_expiry_timestamp_seconds{cluster=\"west\"} ");
  }

  @Test
  void aNewExpiryMovesTheGauge() {
    metrics.setMemberCredentialExpiry("east", Instant.parse("2026-01-01T00:00:00Z"));
    Gauge first = gauge("east");
    metrics.setMemberCredentialExpiry("east", Instant.parse("2026-02-01T00:00:00Z"));

    assertThat(gauge("east").value()).isEqualTo(1_769_904_000.0);
    assertThat(registry.find(NAME).gauges()).hasSize(1);
    assertThat(first.value()).as("the same meter, not a second one").isEqualTo(1_769_904_000.0);
  }

  @Test
  void anUnknownExpiryRemovesTheGaugeAndAKnownOneBringsItBack() {
    metrics.setMemberCredentialExpiry("east", Instant.parse("2026-01-01T00:00:00Z"));
    metrics.setMemberCredentialExpiry("west", Instant.parse("2026-01-01T00:00:00Z"));

    metrics.setMemberCredentialExpiry("east", null);
    assertThat(gauge("east")).isNull();
    assertThat(gauge("west")).isNotNull();
    assertThat(registry.scrape()).doesNotContain("cluster=\"east\"");
    // Removing what is not there changes nothing.
    metrics.setMemberCredentialExpiry("east", null);
    metrics.setMemberCredentialExpiry("north", null);
    assertThat(registry.find(NAME).gauges()).hasSize(1);

    metrics.setMemberCredentialExpiry("east", Instant.parse("2026-03-01T00:00:00Z"));
    assertThat(gauge("east").value()).isEqualTo(1_772_323_200.0);
  }
}
