package dev.pier.testkit;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** Services, their ingress and their Events, as integration tests create and read them. */
public final class Services {
  private Services() {}

  /** A one-port TCP LoadBalancer Service with a fixed nodePort. */
  public static Service loadBalancer(String ns, String name, int port, int nodePort) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withSelector(Map.of("app", name))
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(port)
        .withNodePort(nodePort)
        .endPort()
        .endSpec()
        .build();
  }

  /**
   * Edits a Service, retrying when Pier's own writes (finalizer, status) made the read version
   * stale: the answer a user's kubectl edit also gets.
   */
  public static Service edit(
      KubernetesClient client, String ns, String name, UnaryOperator<Service> change) {
    return Edits.retrying(client.services().inNamespace(ns).withName(name), change);
  }

  /** The first ingress IP, or null. */
  public static String ingressIp(KubernetesClient client, String ns, String name) {
    Service s = client.services().inNamespace(ns).withName(name).get();
    if (s == null || s.getStatus() == null || s.getStatus().getLoadBalancer() == null) {
      return null;
    }
    var ingress = s.getStatus().getLoadBalancer().getIngress();
    return ingress == null || ingress.isEmpty() ? null : ingress.get(0).getIp();
  }

  /** Waits until the Service has an ingress IP and returns it. */
  public static String awaitIngress(KubernetesClient client, String ns, String name) {
    await().atMost(InProcessPier.CONVERGE).until(() -> ingressIp(client, ns, name) != null);
    return ingressIp(client, ns, name);
  }

  /** The Events about the named object in the namespace. */
  public static List<Event> events(KubernetesClient client, String ns, String name) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  /** How many times an Event with this reason was reported (aggregated counts included). */
  public static long eventCount(KubernetesClient client, String ns, String name, String reason) {
    return events(client, ns, name).stream()
        .filter(e -> reason.equals(e.getReason()))
        .mapToLong(e -> e.getCount() == null ? 1 : e.getCount())
        .sum();
  }
}
