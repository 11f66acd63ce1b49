package dev.pier.cloud.local;

import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * One Service's load balancer: its addresses (one, or one per IP family for a dual-stack Service,
 * in the Service's {@code ipFamilies} order), its backend nodes and one listener per address and
 * port.
 */
final class Balancer {

  final ServiceRef ref;
  final ServiceKey key;
  final LoadBalancerUsage usage;
  List<String> ips = List.of();

  /** The {@code pier.dev/allow-shared-ip} key, or null. */
  String share;

  String trafficPolicy = "Cluster";
  String[] hosts = new String[0];
  int healthCheckPort;
  SourceRanges sourceRanges = SourceRanges.ALL;
  List<PortListener> listeners = new ArrayList<>(2);

  Balancer(ServiceRef ref, LoadBalancerUsage usage) {
    this.ref = ref;
    this.key = ref.key();
    this.usage = usage;
  }

  /** Points every listener at the current backends. */
  void retarget() {
    for (PortListener l : listeners) {
      l.retarget(hosts, healthCheckPort);
    }
  }

  /** Closes and forgets every listener. */
  List<Future<Void>> closeListeners() {
    List<Future<Void>> closing = new ArrayList<>(listeners.size());
    for (PortListener l : listeners) {
      closing.add(l.close());
    }
    listeners.clear();
    return closing;
  }

  LbStatus status() {
    List<LbIngress> ingress = new ArrayList<>(ips.size());
    for (String ip : ips) {
      List<LbIngress.PortStatus> ports = new ArrayList<>(listeners.size());
      for (PortListener l : listeners) {
        if (l.ip.equals(ip)) {
          ports.add(new LbIngress.PortStatus(l.port, l.protocol(), l.error()));
        }
      }
      ingress.add(new LbIngress(ip, null, LocalLoadBalancerProvider.IP_MODE, ports));
    }
    return new LbStatus(ingress);
  }
}
