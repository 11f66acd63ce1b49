package dev.pier.model;

import java.util.Objects;

/**
 * Who a cluster is: the name Pier's configuration gives it ({@code cluster.name}, used in keys and
 * log lines) and its identity, the {@code metadata.uid} of its {@code kube-system} namespace, read
 * at startup. Names are not unique (the default is {@code kubernetes}); the uid is. Every mark Pier
 * leaves on an outside object to say "this is mine" (Hetzner labels, PowerDNS comments, webhook
 * calls) carries the uid, so two clusters sharing a cloud project or a DNS zone never take each
 * other's objects for their own.
 *
 * @param name the configured cluster name
 * @param uid the uid of the cluster's {@code kube-system} namespace, never empty
 */
public record ClusterIdentity(String name, String uid) {
  /** The namespace whose uid identifies a cluster. */
  public static final String NAMESPACE = "kube-system";

  public ClusterIdentity {
    Objects.requireNonNull(name, "name");
    if (uid == null || uid.isBlank()) {
      throw new IllegalArgumentException("cluster " + name + ": empty cluster uid");
    }
  }

  @Override
  public String toString() {
    return name + " (" + NAMESPACE + " uid " + uid + ")";
  }
}
