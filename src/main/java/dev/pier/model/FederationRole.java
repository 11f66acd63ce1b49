package dev.pier.model;

/**
 * What a cluster is to the federation: where federated Services are declared, a copy, or neither.
 */
public enum FederationRole {
  HOST,
  MEMBER,
  NONE;

  /** The config spelling: host, member, none. */
  public String configName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
