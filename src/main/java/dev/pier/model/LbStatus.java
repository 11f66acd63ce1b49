package dev.pier.model;

import java.util.List;

/** {@code status.loadBalancer}: the ingress points of a load balancer, compared semantically. */
public record LbStatus(List<LbIngress> ingress) {

  public static final LbStatus EMPTY = new LbStatus(List.of());

  public LbStatus {
    ingress = ingress == null ? List.of() : List.copyOf(ingress);
  }

  public boolean isEmpty() {
    return ingress.isEmpty();
  }
}
