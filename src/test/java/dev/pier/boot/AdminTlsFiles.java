package dev.pier.boot;

import dev.pier.config.ConfigValues;

/** For tests outside {@code boot}: the admin server's TLS files checked as Pier checks them. */
public final class AdminTlsFiles {
  private AdminTlsFiles() {}

  /** Throws what Pier says at startup; true when the admin server serves HTTPS. */
  public static boolean check(ConfigValues config) {
    return AdminTls.of(config) != null;
  }
}
