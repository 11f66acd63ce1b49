package dev.pier.cloud.webhook;

import dev.pier.model.LbIngress;
import dev.pier.model.LbNode;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The JSON bodies of the webhook contract (docs/webhook-provider.md). */
public final class WebhookJson {
  private WebhookJson() {}

  public static JsonObject request(
      String cluster, String loadBalancerName, LbService service, List<LbNode> nodes) {
    JsonObject o =
        new JsonObject()
            .put("cluster", cluster)
            .put("loadBalancerName", loadBalancerName)
            .put("service", service(service));
    if (nodes != null) {
      JsonArray list = new JsonArray();
      nodes.forEach(n -> list.add(node(n)));
      o.put("nodes", list);
    }
    return o;
  }

  static JsonObject service(LbService s) {
    JsonArray ports = new JsonArray();
    for (LbPort p : s.ports()) {
      ports.add(
          new JsonObject()
              .put("name", p.name())
              .put("protocol", p.protocol())
              .put("port", p.port())
              .put("nodePort", p.nodePort()));
    }
    return new JsonObject()
        .put("namespace", s.key().namespace())
        .put("name", s.key().name())
        .put("uid", s.uid())
        .put("ports", ports)
        .put("loadBalancerIP", s.loadBalancerIp())
        .put("externalTrafficPolicy", s.externalTrafficPolicy())
        .put("healthCheckNodePort", s.healthCheckNodePort())
        .put("sessionAffinity", s.sessionAffinity())
        .put("loadBalancerSourceRanges", new JsonArray(new ArrayList<>(s.sourceRanges())))
        .put("annotations", new JsonObject(Map.copyOf(s.annotations())))
        .put("ipFamilies", new JsonArray(new ArrayList<>(s.ipFamilies())))
        .put("status", status(s.status()));
  }

  static JsonObject node(LbNode n) {
    return new JsonObject()
        .put("name", n.name())
        .put("providerID", n.providerId())
        .put("internalIP", n.internalIp())
        .put("externalIP", n.externalIp())
        .put("labels", new JsonObject(Map.copyOf(n.labels())));
  }

  public static JsonObject status(LbStatus status) {
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
      ingress.add(o);
    }
    return new JsonObject().put("ingress", ingress);
  }

  /** Parses {@code {"ingress": [{"ip", "hostname", "ipMode"}]}}; throws on a malformed body. */
  public static LbStatus parseStatus(JsonObject o) {
    if (o == null) {
      throw new IllegalArgumentException("no \"status\" object");
    }
    JsonArray list = o.getJsonArray("ingress", new JsonArray());
    List<LbIngress> ingress = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      JsonObject e = list.getJsonObject(i);
      String ip = e.getString("ip");
      String hostname = e.getString("hostname");
      if ((ip == null || ip.isEmpty()) && (hostname == null || hostname.isEmpty())) {
        throw new IllegalArgumentException("status.ingress[" + i + "] has neither ip nor hostname");
      }
      String mode = e.getString("ipMode");
      if (mode != null && !mode.equals("VIP") && !mode.equals("Proxy")) {
        throw new IllegalArgumentException(
            "status.ingress[" + i + "].ipMode=" + mode + " is not VIP or Proxy");
      }
      ingress.add(new LbIngress(ip, hostname, mode, List.of()));
    }
    return new LbStatus(ingress);
  }
}
