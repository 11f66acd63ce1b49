package dev.pier.model;

import java.util.Map;

/**
 * A node as a load balancer needs it: its name, provider id, addresses and labels. Built from the
 * informer's Node so that providers never see (or mutate) API objects.
 */
public record LbNode(
    String name,
    String providerId,
    String internalIp,
    String externalIp,
    Map<String, String> labels) {

  public LbNode {
    providerId = providerId == null ? "" : providerId;
    labels = labels == null ? Map.of() : Map.copyOf(labels);
  }

  /** The address a load balancer sends traffic to: InternalIP, else ExternalIP, else null. */
  public String backendAddress() {
    if (internalIp != null && !internalIp.isEmpty()) {
      return internalIp;
    }
    return externalIp == null || externalIp.isEmpty() ? null : externalIp;
  }
}
