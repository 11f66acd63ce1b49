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
   * This status as an API server that stored {@code stored} keeps it. A field that no ingress of
   * {@code stored} carries is one the server does not know (servers before 1.29 drop {@code
   * ipMode}, before 1.24 {@code ports}), and is left out here too. A server that knows {@code
   * ipMode} defaults it: an ingress with an {@code ip} and no mode is stored as {@code VIP}.
   */
  public LbStatus keptAs(LbStatus stored) {
    boolean ipMode = stored.ingress.stream().anyMatch(i -> i.ipMode() != null);
    boolean ports = stored.ingress.stream().anyMatch(i -> !i.ports().isEmpty());
    return new LbStatus(
        ingress.stream()
            .map(
                i ->
                    new LbIngress(
                        i.ip(),
                        i.hostname(),
                        ipMode ? defaultedIpMode(i) : null,
                        ports ? i.ports() : List.of()))
            .toList());
  }

  private static String defaultedIpMode(LbIngress i) {
    return i.ipMode() == null && i.ip() != null ? LbIngress.VIP : i.ipMode();
  }
}
