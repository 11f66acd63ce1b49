package dev.pier.policy;

import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;

/** Whether a Service has endpoints that can take traffic. */
public final class EndpointReadiness {
  private EndpointReadiness() {}

  /** True when the Endpoints have at least one ready address (notReadyAddresses do not count). */
  public static boolean ready(Endpoints e) {
    if (e == null || e.getSubsets() == null) {
      return false;
    }
    for (EndpointSubset s : e.getSubsets()) {
      if (s.getAddresses() != null && !s.getAddresses().isEmpty()) {
        return true;
      }
    }
    return false;
  }
}
