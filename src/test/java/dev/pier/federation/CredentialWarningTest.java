package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CredentialWarningTest {
  private static final Instant NOW = Instant.parse("2026-12-05T08:00:00Z");

  @Test
  void aCredentialExpiringWithinTheWindowIsWarnedAboutOncePerHour() {
    Instant expiry = NOW.plus(Duration.ofDays(10));
    assertThat(CredentialWarning.due(expiry, NOW, null)).isTrue();
    assertThat(CredentialWarning.due(expiry, NOW.plusSeconds(60), NOW)).isFalse();
    assertThat(CredentialWarning.due(expiry, NOW.plus(Duration.ofHours(1)), NOW)).isTrue();
  }

  @Test
  void anExpiredCredentialIsWarnedAboutToo() {
    assertThat(CredentialWarning.due(NOW.minusSeconds(1), NOW, null)).isTrue();
  }

  @Test
  void noWarningOutsideTheWindowOrWithoutAnExpiry() {
    assertThat(CredentialWarning.due(NOW.plus(Duration.ofDays(31)), NOW, null)).isFalse();
    assertThat(CredentialWarning.due(null, NOW, null)).isFalse();
  }
}
