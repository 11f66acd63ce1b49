package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.model.FederationKeys;
import dev.pier.testkit.FederatedServices;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The steps of a federated life cycle that the federation RBAC tests drive, with a host and one
 * member {@code east} whose load balancers come from its cloud's controller, so that the audit logs
 * show every right those steps use.
 *
 * @param memberToken the token of the member identity the tests grant exactly the manifest's rights
 */
record FederatedLifeCycle(KubeApiServer host, KubeApiServer member, String memberToken) {
  static final String INGRESS_IP = "192.0.2.10";

  /**
   * With Pier running: a Service is copied, served by the member's cloud controller (its endpoints
   * ready) and aggregated on the host under Pier's finalizer; a host edit follows to the copy;
   * placed elsewhere, the copy goes; deleted, the host Service goes; deleted with the orphan
   * policy, its copy stays without Pier's marks.
   */
  void copyServeFollowPlaceAndDelete(String ns) {
    KubernetesClient admin = host.client();
    // Created on the host: copied to the member.
    admin.resource(FederatedServices.federated(ns, "web", Map.of())).create();
    awaitCopy(ns, "web");
    // The member's cloud controller serves the copy, and its endpoints turn ready.
    member
        .client()
        .services()
        .inNamespace(ns)
        .withName("web")
        .editStatus(
            s ->
                new ServiceBuilder(s)
                    .editOrNewStatus()
                    .editOrNewLoadBalancer()
                    .addNewIngress()
                    .withIp(INGRESS_IP)
                    .endIngress()
                    .endLoadBalancer()
                    .endStatus()
                    .build());
    FederatedServices.endpointSlice(member.client(), ns, "web", true);
    String annotation =
        "{\"items\":[{\"cluster\":\"east\",\"items\":[{\"ip\":\"" + INGRESS_IP + "\"}]}]}";
    await().atMost(InProcessPier.CONVERGE).until(() -> annotation.equals(annotation(ns, "web")));
    await()
        .atMost(InProcessPier.CONVERGE)
        .until(() -> INGRESS_IP.equals(Services.ingressIp(admin, ns, "web")));
    assertThat(hostService(ns, "web").getMetadata().getFinalizers())
        .contains(FederationKeys.FINALIZER);

    // A change on the host follows to the copy.
    Services.edit(
        admin,
        ns,
        "web",
        s ->
            new ServiceBuilder(s).editMetadata().addToLabels("version", "2").endMetadata().build());
    await()
        .atMost(InProcessPier.CONVERGE)
        .until(() -> "2".equals(copy(ns, "web").getMetadata().getLabels().get("version")));

    // Placed elsewhere: the copy goes.
    Services.edit(
        admin,
        ns,
        "web",
        s ->
            new ServiceBuilder(s)
                .editMetadata()
                .addToAnnotations(FederationKeys.CLUSTERS_ANNOTATION, "west")
                .endMetadata()
                .build());
    await().atMost(InProcessPier.CONVERGE).until(() -> copy(ns, "web") == null);

    // Deleted: the finalizer goes, and the Service with it.
    admin.services().inNamespace(ns).withName("web").delete();
    await().atMost(InProcessPier.CONVERGE).until(() -> hostService(ns, "web") == null);

    // Deleted with the orphan policy: the copy stays without Pier's marks.
    admin
        .resource(
            FederatedServices.federated(
                ns, "kept", Map.of(FederationKeys.DELETE_POLICY_ANNOTATION, "orphan")))
        .create();
    awaitCopy(ns, "kept");
    admin.services().inNamespace(ns).withName("kept").delete();
    await()
        .atMost(InProcessPier.CONVERGE)
        .until(
            () ->
                copy(ns, "kept") != null
                    && !copy(ns, "kept")
                        .getMetadata()
                        .getLabels()
                        .containsKey(FederationKeys.FEDERATION_LABEL));
  }

  /** With Pier running: a Service {@code left} is copied, to be deleted while Pier is down. */
  void copyOneToLeaveBehind(String ns) {
    host.client().resource(FederatedServices.federated(ns, "left", Map.of())).create();
    awaitCopy(ns, "left");
  }

  /** With Pier down: {@code left} is deleted on the host, its finalizer removed by hand. */
  void deleteTheOneLeftBehind(String ns) {
    KubernetesClient admin = host.client();
    Services.edit(
        admin,
        ns,
        "left",
        s -> new ServiceBuilder(s).editMetadata().withFinalizers(List.of()).endMetadata().build());
    admin.services().inNamespace(ns).withName("left").delete();
    await().atMost(InProcessPier.CONVERGE).until(() -> hostService(ns, "left") == null);
  }

  /**
   * With Pier running with only the host configured: the member joins through its Secret (with
   * {@code annotations}) and gets the copy of a new federated Service {@code after}; the copy of
   * {@code left}, whose host Service and with it Pier's record of that copy went while Pier was
   * down, is never touched: Pier cannot show it made it. Then the Secret is deleted, held by Pier's
   * finalizer until the leave is recorded, the member leaves after the grace, and the record goes.
   */
  void joinBySecretKeepTheUnprovenCopyAndLeave(String ns, Map<String, String> annotations) {
    KubernetesClient admin = host.client();
    String leftVersion = copy(ns, "left").getMetadata().getResourceVersion();
    admin
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withNamespace("pier")
                .withName("member-east")
                .withLabels(Map.of(FederationKeys.CLUSTER_SECRET_LABEL, "east"))
                .withAnnotations(annotations)
                .endMetadata()
                .withStringData(
                    Map.of(
                        "kubeconfig",
                        member.selfContainedKubeconfig().replace(member.adminToken(), memberToken)))
                .build())
        .create();
    admin.resource(FederatedServices.federated(ns, "after", Map.of())).create();
    awaitCopy(ns, "after");
    assertThat(copy(ns, "left").getMetadata().getResourceVersion())
        .as("the copy Pier cannot show it made, after it copied another Service to that member")
        .isEqualTo(leftVersion);

    admin.secrets().inNamespace("pier").withName("member-east").delete();
    await()
        .atMost(InProcessPier.CONVERGE)
        .until(
            () ->
                admin.secrets().inNamespace("pier").withName("member-east").get() == null
                    && admin.secrets().inNamespace("pier").withName("pier-leaving-east").get()
                        == null);
  }

  /**
   * Starts Pier, leading, with the host reached with {@code hostToken} (and the host's own load
   * balancers, which the base role covers), and, unless {@code eastFields} is null, the member
   * {@code east} configured with the member token and those fields.
   *
   * @param eastFields lines of east's cluster entry after its kubeconfig, or null: east may join
   *     through its Secret
   * @param federationFields lines of the {@code federation} section besides the leave grace and
   *     health probe
   */
  InProcessPier startPier(String hostToken, String eastFields, String federationFields) {
    FederationConfig config =
        FederationConfig.host(host.kubeconfigFor(hostToken))
            // Pier needs one cluster with load balancers; the base rbac.yaml is bound here anyway.
            .pool("127.248.0.0/28");
    if (eastFields != null) {
      config
          .member("east", member.kubeconfigFor(memberToken))
          .loadBalancers(false)
          .clusterYaml(eastFields);
    }
    config.federationYaml(federationFields).leaveGrace("1s").health("500ms", "400ms");
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.LEADER_ELECTION_ENABLED.envName(), "true");
    env.put(PierOptions.LEADER_ELECTION_NAMESPACE.envName(), "pier");
    env.put(PierOptions.LEADER_ELECTION_LEASE_DURATION.envName(), "4s");
    env.put(PierOptions.LEADER_ELECTION_RENEW_DEADLINE.envName(), "3s");
    env.put(PierOptions.LEADER_ELECTION_RETRY_PERIOD.envName(), "500ms");
    return InProcessPier.startWithConfig(config.yaml(), env);
  }

  Service copy(String ns, String name) {
    return member.client().services().inNamespace(ns).withName(name).get();
  }

  void awaitCopy(String ns, String name) {
    await().atMost(InProcessPier.CONVERGE).until(() -> copy(ns, name) != null);
  }

  Service hostService(String ns, String name) {
    return host.client().services().inNamespace(ns).withName(name).get();
  }

  String annotation(String ns, String name) {
    Service s = hostService(ns, name);
    return s == null || s.getMetadata().getAnnotations() == null
        ? null
        : s.getMetadata().getAnnotations().get(FederationKeys.INGRESSES_ANNOTATION);
  }
}
