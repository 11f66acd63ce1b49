package dev.pier.federation;

import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code federation.kubernetes.io/service-ingresses} annotation in the seed's format: {@code
 * {"items":[{"cluster":"c1","items":[{"ip":"198.51.100.1"}]},{"cluster":"c3","items":[]}]}}.
 * Clusters are sorted by name, each cluster's ingresses by ip then hostname; the outer {@code
 * items} is left out when there are no clusters.
 */
public final class IngressAnnotation {
  private static final JsonMapper MAPPER = JsonMapper.shared();

  /** Sorts load-balancer ingresses by ip, then hostname; a missing value sorts as "". */
  public static final Comparator<LoadBalancerIngress> BY_IP_THEN_HOSTNAME =
      Comparator.comparing((LoadBalancerIngress i) -> orEmpty(i.getIp()))
          .thenComparing(i -> orEmpty(i.getHostname()));

  private IngressAnnotation() {}

  /** One member's entry: its ingresses, or none when it has no ready endpoints. */
  public record ClusterIngresses(String cluster, List<LoadBalancerIngress> items) {
    public ClusterIngresses {
      items = items == null ? List.of() : List.copyOf(items);
    }
  }

  public static String json(List<ClusterIngresses> clusters) {
    ObjectNode root = MAPPER.createObjectNode();
    if (clusters.isEmpty()) {
      return MAPPER.writeValueAsString(root);
    }
    ArrayNode outer = root.putArray("items");
    clusters.stream()
        .sorted(Comparator.comparing(ClusterIngresses::cluster))
        .forEach(
            c -> {
              ObjectNode entry = outer.addObject();
              entry.put("cluster", c.cluster());
              ArrayNode items = entry.putArray("items");
              c.items().stream()
                  .sorted(BY_IP_THEN_HOSTNAME)
                  .forEach(
                      i -> {
                        ObjectNode item = items.addObject();
                        if (!orEmpty(i.getIp()).isEmpty()) {
                          item.put("ip", i.getIp());
                        }
                        if (!orEmpty(i.getHostname()).isEmpty()) {
                          item.put("hostname", i.getHostname());
                        }
                      });
            });
    return MAPPER.writeValueAsString(root);
  }

  /**
   * The entries of an annotation, in the order written. Lenient: a missing, blank or malformed
   * annotation has no entries, and an entry without a cluster name is skipped.
   */
  public static List<ClusterIngresses> parse(String annotation) {
    if (annotation == null || annotation.isBlank()) {
      return List.of();
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(annotation);
    } catch (JacksonException e) {
      return List.of();
    }
    if (root == null || !root.isObject() || !root.path("items").isArray()) {
      return List.of();
    }
    List<ClusterIngresses> out = new ArrayList<>();
    for (JsonNode entry : root.path("items").values()) {
      if (!entry.isObject() || !entry.path("cluster").isString()) {
        continue;
      }
      List<LoadBalancerIngress> items = new ArrayList<>();
      for (JsonNode item : entry.path("items").values()) {
        if (!item.isObject()) {
          continue;
        }
        LoadBalancerIngressBuilder b = new LoadBalancerIngressBuilder();
        if (item.path("ip").isString()) {
          b.withIp(item.path("ip").stringValue());
        }
        if (item.path("hostname").isString()) {
          b.withHostname(item.path("hostname").stringValue());
        }
        items.add(b.build());
      }
      out.add(new ClusterIngresses(entry.path("cluster").stringValue(), items));
    }
    return out;
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
