package dev.pier.testkit;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Federated Services and the member-side objects tests write for them. */
public final class FederatedServices {
  /** The annotation that federates a host Service. */
  public static final String FEDERATED = "pier.dev/federated";

  /** The label that opts a host namespace in to a federation, and the default federation's name. */
  public static final String OPT_IN_LABEL = "pier.dev/federation";

  public static final String FEDERATION = "pier";

  private FederatedServices() {}

  /**
   * The members east (a Ready node east-1 at {@code eastNode} in region eu, zone eu-a) and west
   * (west-1 at {@code westNode} in us, us-a), their API servers started side by side.
   */
  public static Map<String, KubeApiServer> eastAndWest(String eastNode, String westNode)
      throws Exception {
    Map<String, KubeApiServer> members =
        KubeApiServers.start(List.of("east", "west"), 2, KubeApiServer::start);
    members
        .get("east")
        .createReadyNode(
            "east-1",
            eastNode,
            Map.of("topology.kubernetes.io/region", "eu", "topology.kubernetes.io/zone", "eu-a"));
    members
        .get("west")
        .createReadyNode(
            "west-1",
            westNode,
            Map.of("topology.kubernetes.io/region", "us", "topology.kubernetes.io/zone", "us-a"));
    return members;
  }

  /**
   * A member API server with one Ready node at 127.0.0.1 in region eu, zone eu-a, and the namespace
   * of the member Secrets ({@code pier}) in the host.
   */
  public static KubeApiServer memberWithNode(KubeApiServer host, String node) {
    KubeApiServer member = KubeApiServer.start();
    member.createReadyNode(
        node,
        "127.0.0.1",
        Map.of("topology.kubernetes.io/region", "eu", "topology.kubernetes.io/zone", "eu-a"));
    host.client()
        .namespaces()
        .resource(
            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata()
                .withName("pier")
                .endMetadata()
                .build())
        .create();
    return member;
  }

  /** Opts a host namespace in to the default federation, as an operator does. */
  public static void optIn(KubernetesClient host, String namespace) {
    host.namespaces()
        .withName(namespace)
        .edit(
            n -> {
              Map<String, String> labels =
                  n.getMetadata().getLabels() == null
                      ? new HashMap<>()
                      : new HashMap<>(n.getMetadata().getLabels());
              labels.put(OPT_IN_LABEL, FEDERATION);
              n.getMetadata().setLabels(labels);
              return n;
            });
  }

  /** A federated LoadBalancer Service, port 80 to 8080, labelled and selecting app=name. */
  public static Service federated(String ns, String name, Map<String, String> annotations) {
    Map<String, String> a = new HashMap<>(annotations);
    a.put(FEDERATED, "true");
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withLabels(Map.of("app", name))
        .withAnnotations(a)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withSelector(Map.of("app", name))
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withNewTargetPort(8080)
        .endPort()
        .endSpec()
        .build();
  }

  /** Writes (or rewrites) the member copy's EndpointSlice, see {@link EndpointSlices#write}. */
  public static void endpointSlice(KubernetesClient member, String ns, String name, boolean ready) {
    EndpointSlices.write(member, ns, name, ready);
  }
}
