package dev.pier.federation;

import java.time.Duration;
import java.time.Instant;

/**
 * When a member's credential is close enough to its expiry to warn about. An expired token makes
 * the member unreachable, and tokens minted together expire together: the issue of a federation
 * losing contact with every member at once. The warning repeats at most once per {@link #EVERY}
 * while it holds.
 */
public final class CredentialWarning {
  /** How long before expiry a credential is warned about; {@code pier status} marks it WARN too. */
  public static final Duration WINDOW = Duration.ofDays(30);

  /** How often the Warning repeats while it holds. */
  public static final Duration EVERY = Duration.ofHours(1);

  private CredentialWarning() {}

  /**
   * @param expiry the credential's expiry, or null when it carries none Pier can read
   * @param lastWarned when this member was last warned about, or null
   */
  public static boolean due(Instant expiry, Instant now, Instant lastWarned) {
    if (expiry == null || !expiry.isBefore(now.plus(WINDOW))) {
      return false;
    }
    return lastWarned == null || !lastWarned.plus(EVERY).isAfter(now);
  }
}
