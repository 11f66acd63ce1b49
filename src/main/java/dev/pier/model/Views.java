package dev.pier.model;

import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.PortStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** Converts API objects into the immutable views providers see, and statuses to JSON. */
public final class Views {
  private Views() {}

  public static ServiceKey key(String cluster, Service svc) {
    return new ServiceKey(cluster, svc.getMetadata().getNamespace(), svc.getMetadata().getName());
  }

  /** The Service as runs, logs and Events name it. */
  public static ServiceRef ref(String cluster, Service svc) {
    return new ServiceRef(
        cluster,
        svc.getMetadata().getNamespace(),
        svc.getMetadata().getName(),
        svc.getMetadata().getUid());
  }

  public static LbService service(String cluster, Service svc) {
    ServiceSpec spec = svc.getSpec();
    List<LbPort> ports = new ArrayList<>();
    if (spec.getPorts() != null) {
      for (ServicePort p : spec.getPorts()) {
        ports.add(
            new LbPort(
                p.getName(),
                p.getProtocol(),
                p.getPort() == null ? 0 : p.getPort(),
                p.getNodePort() == null ? 0 : p.getNodePort()));
      }
    }
    return new LbService(
        key(cluster, svc),
        svc.getMetadata().getUid(),
        ports,
        emptyToNull(spec.getLoadBalancerIP()),
        spec.getExternalTrafficPolicy(),
        spec.getHealthCheckNodePort() == null ? 0 : spec.getHealthCheckNodePort(),
        spec.getSessionAffinity(),
        spec.getLoadBalancerSourceRanges(),
        svc.getMetadata().getAnnotations(),
        spec.getIpFamilies(),
        status(svc.getStatus() == null ? null : svc.getStatus().getLoadBalancer()),
        spec.getIpFamilyPolicy());
  }

  public static LbStatus status(LoadBalancerStatus status) {
    if (status == null || status.getIngress() == null) {
      return LbStatus.EMPTY;
    }
    List<LbIngress> ingress = new ArrayList<>();
    for (LoadBalancerIngress i : status.getIngress()) {
      List<LbIngress.PortStatus> ports = new ArrayList<>();
      if (i.getPorts() != null) {
        i.getPorts()
            .forEach(
                p ->
                    ports.add(
                        new LbIngress.PortStatus(
                            p.getPort() == null ? 0 : p.getPort(), p.getProtocol(), p.getError())));
      }
      ingress.add(
          new LbIngress(
              emptyToNull(i.getIp()), emptyToNull(i.getHostname()), i.getIpMode(), ports));
    }
    return new LbStatus(ingress);
  }

  public static LbNode node(Node node) {
    String internal = null;
    String external = null;
    if (node.getStatus() != null && node.getStatus().getAddresses() != null) {
      for (NodeAddress a : node.getStatus().getAddresses()) {
        if ("InternalIP".equals(a.getType()) && internal == null) {
          internal = a.getAddress();
        } else if ("ExternalIP".equals(a.getType()) && external == null) {
          external = a.getAddress();
        }
      }
    }
    return new LbNode(
        node.getMetadata().getName(),
        node.getSpec() == null ? null : node.getSpec().getProviderID(),
        internal,
        external,
        node.getMetadata().getLabels());
  }

  /** The fabric8 form of a status, for code that works on the Kubernetes model. */
  public static LoadBalancerStatus loadBalancerStatus(LbStatus status) {
    List<LoadBalancerIngress> ingress = new ArrayList<>();
    for (LbIngress i : status.ingress()) {
      LoadBalancerIngress out = new LoadBalancerIngress();
      out.setIp(i.ip());
      out.setHostname(i.hostname());
      out.setIpMode(i.ipMode());
      out.setPorts(
          i.ports().stream()
              .map(
                  p -> {
                    PortStatus port = new PortStatus();
                    port.setPort(p.port());
                    port.setProtocol(p.protocol());
                    port.setError(p.error());
                    return port;
                  })
              .collect(Collectors.toCollection(ArrayList::new)));
      ingress.add(out);
    }
    return new LoadBalancerStatus(ingress);
  }

  /** {@code status.loadBalancer} as JSON; an empty status clears the ingress list. */
  public static JsonObject statusJson(LbStatus status) {
    if (status.isEmpty()) {
      return new JsonObject().putNull("ingress");
    }
    JsonArray ingress = new JsonArray();
    for (LbIngress i : status.ingress()) {
      JsonObject o = new JsonObject();
      if (i.ip() != null) {
        o.put("ip", i.ip());
      }
      if (i.hostname() != null) {
        o.put("hostname", i.hostname());
      }
      if (i.ipMode() != null) {
        o.put("ipMode", i.ipMode());
      }
      if (!i.ports().isEmpty()) {
        JsonArray ports = new JsonArray();
        for (LbIngress.PortStatus p : i.ports()) {
          JsonObject po = new JsonObject().put("port", p.port()).put("protocol", p.protocol());
          if (p.error() != null) {
            po.put("error", p.error());
          }
          ports.add(po);
        }
        o.put("ports", ports);
      }
      ingress.add(o);
    }
    return new JsonObject().put("ingress", ingress);
  }

  /** Reads {@code status.loadBalancer} from a Service as JSON (a PATCH response). */
  public static LbStatus statusFromServiceJson(JsonObject service) {
    JsonObject lb = service.getJsonObject("status", new JsonObject()).getJsonObject("loadBalancer");
    if (lb == null || lb.getJsonArray("ingress") == null) {
      return LbStatus.EMPTY;
    }
    List<LbIngress> ingress = new ArrayList<>();
    for (Object o : lb.getJsonArray("ingress")) {
      JsonObject i = (JsonObject) o;
      List<LbIngress.PortStatus> ports = new ArrayList<>();
      JsonArray pa = i.getJsonArray("ports");
      if (pa != null) {
        for (Object p : pa) {
          JsonObject po = (JsonObject) p;
          ports.add(
              new LbIngress.PortStatus(
                  po.getInteger("port", 0), po.getString("protocol"), po.getString("error")));
        }
      }
      ingress.add(
          new LbIngress(
              emptyToNull(i.getString("ip")),
              emptyToNull(i.getString("hostname")),
              i.getString("ipMode"),
              ports));
    }
    return new LbStatus(ingress);
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
