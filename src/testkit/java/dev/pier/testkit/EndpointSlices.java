package dev.pier.testkit;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/**
 * Writes a Service's EndpointSlice as the endpoint-slice controller would: no controller runs on
 * the test API servers, and Pier reads endpoint readiness from {@code discovery.k8s.io/v1} only.
 */
public final class EndpointSlices {
  private EndpointSlices() {}

  /**
   * Writes (or rewrites, by server-side apply) the slice {@code <name>-slice} of Service {@code
   * name} with one endpoint at 10.1.0.1, ready or not.
   */
  public static void write(KubernetesClient client, String ns, String name, boolean ready) {
    client
        .resource(
            new EndpointSliceBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name + "-slice")
                .withLabels(Map.of("kubernetes.io/service-name", name))
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses("10.1.0.1")
                .withNewConditions()
                .withReady(ready)
                .endConditions()
                .endEndpoint()
                .addNewPort()
                .withName("http")
                .withProtocol("TCP")
                .withPort(8080)
                .endPort()
                .build())
        .fieldManager("endpointslice-controller.k8s.io")
        .forceConflicts()
        .serverSideApply();
  }
}
