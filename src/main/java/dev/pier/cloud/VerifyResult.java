package dev.pier.cloud;

import java.util.List;

/**
 * What {@link LoadBalancerProvider#verifyLoadBalancer} found and did: the load balancer as it is
 * now, and what had to be repaired because it differed from the Service (empty when nothing did, or
 * when the provider cannot tell).
 */
public record VerifyResult(EnsureResult result, List<String> repairs) {
  public VerifyResult {
    repairs = repairs == null ? List.of() : List.copyOf(repairs);
  }
}
