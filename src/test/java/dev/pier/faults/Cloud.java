package dev.pier.faults;

import io.fabric8.kubernetes.api.model.ServicePort;
import java.util.Map;
import java.util.Set;

/** What the load-balancer side holds, as the invariants compare it with the Services. */
interface Cloud {
  /** Every load balancer by its address, with the ports it serves, spelled as {@link #port}. */
  Map<String, Set<String>> loadBalancers();

  /** How this cloud spells a Service port it serves. */
  String port(ServicePort p);
}
