package dev.pier.model;

import java.util.Locale;

/**
 * What a cluster is to the federation: where federated Services are declared, a copy, or neither.
 */
public enum FederationRole {
  HOST,
  MEMBER,
  NONE;

  /** The config spelling: host, member, none. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
