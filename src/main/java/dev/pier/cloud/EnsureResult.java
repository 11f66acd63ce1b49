package dev.pier.cloud;

import dev.pier.model.LbStatus;
import java.util.List;

/**
 * What {@link LoadBalancerProvider#ensureLoadBalancer} achieved: the status to publish and the
 * problems that did not fail the whole load balancer (one port that cannot bind, say), each
 * reported as a Warning event on the Service.
 */
public record EnsureResult(LbStatus status, List<Warning> warnings) {

  public EnsureResult {
    warnings = warnings == null ? List.of() : List.copyOf(warnings);
  }

  public static EnsureResult of(LbStatus status) {
    return new EnsureResult(status, List.of());
  }

  /** A Warning event: a CamelCase reason and a message that names the field and value. */
  public record Warning(String reason, String message) {}
}
