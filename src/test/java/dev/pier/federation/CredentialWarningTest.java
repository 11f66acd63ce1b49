package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CredentialWarningTest {
  private static final Instant NOW = Instant.parse("2026-12-05T08:00:00Z");
  private static final Duration WINDOW = FederationOptions.DEFAULT_CREDENTIAL_EXPIRY_WARNING;

  @Test
  void aCredentialExpiringWithinTheWindowIsWarnedAboutOncePerHour() {
    Instant expiry = NOW.plus(Duration.ofDays(10));
    assertThat(CredentialWarning.due(expiry, NOW, null, WINDOW)).isTrue();
    assertThat(CredentialWarning.due(expiry, NOW.plusSeconds(60), NOW, WINDOW)).isFalse();
    assertThat(CredentialWarning.due(expiry, NOW.plus(Duration.ofHours(1)), NOW, WINDOW)).isTrue();
  }

  @Test
  void anExpiredCredentialIsWarnedAboutToo() {
    assertThat(CredentialWarning.due(NOW.minusSeconds(1), NOW, null, WINDOW)).isTrue();
    assertThat(CredentialWarning.due(NOW.minusSeconds(1), NOW, null, Duration.ofMinutes(1)))
        .isTrue();
  }

  @Test
  void noWarningOutsideTheWindowOrWithoutAnExpiry() {
    assertThat(CredentialWarning.due(NOW.plus(Duration.ofDays(31)), NOW, null, WINDOW)).isFalse();
    assertThat(CredentialWarning.due(null, NOW, null, WINDOW)).isFalse();
  }

  @Test
  void theWindowIsTheConfiguredOne() {
    Instant expiry = NOW.plus(Duration.ofDays(10));
    assertThat(CredentialWarning.due(expiry, NOW, null, Duration.ofDays(7))).isFalse();
    assertThat(CredentialWarning.due(expiry, NOW, null, Duration.ofDays(11))).isTrue();
    assertThat(CredentialWarning.due(NOW.plus(Duration.ofDays(40)), NOW, null, Duration.ofDays(60)))
        .isTrue();
  }
}
