package dev.pier.federation;

import java.time.Duration;
import java.time.Instant;

/**
 * When a member's credential is close enough to its expiry to warn about. An expired token makes
 * the member unreachable, and tokens minted together expire together: the issue of a federation
 * losing contact with every member at once. The window is {@code
 * federation.credentialExpiryWarning} ({@link FederationOptions#credentialExpiryWarning()}); the
 * warning repeats at most once per {@link #EVERY} while it holds.
 */
public final class CredentialWarning {
  /** How often the Warning repeats while it holds. */
  public static final Duration EVERY = Duration.ofHours(1);

  private CredentialWarning() {}

  /**
   * @param expiry the credential's expiry, or null when it carries none Pier can read
   * @param lastWarned when this member was last warned about, or null
   * @param window how long before its expiry a credential is warned about
   */
  public static boolean due(Instant expiry, Instant now, Instant lastWarned, Duration window) {
    if (expiry == null || !expiry.isBefore(now.plus(window))) {
      return false;
    }
    return lastWarned == null || !lastWarned.plus(EVERY).isAfter(now);
  }
}
