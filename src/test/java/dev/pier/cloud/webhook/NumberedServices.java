package dev.pier.cloud.webhook;

import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import java.util.List;
import java.util.Map;

/** Services told apart by a number only: what tests that count calls in flight send. */
public final class NumberedServices {
  private NumberedServices() {}

  /** Service {@code c/ns/s<i>} with uid {@code u-<i>} and one TCP port. */
  public static LbService numbered(int i) {
    return new LbService(
        new ServiceKey("c", "ns", "s" + i),
        "u-" + i,
        List.of(new LbPort("a", "TCP", 80, 30080)),
        null,
        "Cluster",
        0,
        "None",
        List.of(),
        Map.of(),
        List.of(),
        LbStatus.EMPTY);
  }
}
