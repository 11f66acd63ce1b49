package dev.pier.faults;

import dev.pier.cloud.webhook.ReferenceWebhook;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The reference webhook's load balancers: address, and protocol/port->nodePort per port. */
record WebhookCloud(ReferenceWebhook webhook) implements Cloud {
  @Override
  public Map<String, Set<String>> loadBalancers() {
    Map<String, Set<String>> out = new TreeMap<>();
    for (JsonObject lb : webhook.loadBalancers().values()) {
      Set<String> ports = new TreeSet<>();
      JsonArray list = lb.getJsonArray("ports", new JsonArray());
      for (int i = 0; i < list.size(); i++) {
        JsonObject p = list.getJsonObject(i);
        ports.add(
            p.getString("protocol") + "/" + p.getInteger("port") + "->" + p.getInteger("nodePort"));
      }
      out.put(lb.getString("ip"), ports);
    }
    return out;
  }

  @Override
  public String port(ServicePort p) {
    return p.getProtocol() + "/" + p.getPort() + "->" + p.getNodePort();
  }
}
