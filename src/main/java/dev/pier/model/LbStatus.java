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

  /**
   * Whether this status, as an API server stored it, shows {@code desired}: equal once the fields
   * this server does not keep are set aside ({@link #keptAs}).
   */
  public boolean shows(LbStatus desired) {
    return equals(desired.keptAs(this));
  }

  /**
   * This status as an API server that stored {@code stored} keeps it: a field that no ingress of
   * {@code stored} carries is one the server does not know (1.20 drops {@code ipMode}, servers
   * before 1.24 drop {@code ports}), and is left out here too.
   */
  public LbStatus keptAs(LbStatus stored) {
    boolean ipMode = stored.ingress.stream().anyMatch(i -> i.ipMode() != null);
    boolean ports = stored.ingress.stream().anyMatch(i -> !i.ports().isEmpty());
    if (ipMode && ports) {
      return this;
    }
    return new LbStatus(
        ingress.stream()
            .map(
                i ->
                    new LbIngress(
                        i.ip(),
                        i.hostname(),
                        ipMode ? i.ipMode() : null,
                        ports ? i.ports() : List.of()))
            .toList());
  }
}
