package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.federation.MemberServices.Ownership;
import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class MemberServicesTest {
  private static final String FED = "pier";
  private static final String HOST_CLUSTER = "kube-system-uid-1";
  private static final String HOST_SERVICE = "svc-uid-1";

  /** A host Service as the host API server returns it: allocated and defaulted. */
  private static Service host() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app", "web");
    labels.put("pier.dev/federated", "true");
    labels.put("federation.kubernetes.io/x", "y");
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put("team", "shop");
    annotations.put("pier.dev/federated", "true");
    annotations.put("pier.dev/clusters", "c1,c2");
    annotations.put("pier.dev/cluster-selector", "region=eu");
    annotations.put("pier.dev/delete-policy", "orphan");
    annotations.put("federation.kubernetes.io/service-ingresses", "{}");
    annotations.put("federation.kubernetes.io/anything", "x");
    annotations.put("kubectl.kubernetes.io/last-applied-configuration", "{...}");
    annotations.put("kubectl.kubernetes.io/restartedAt", "now");
    annotations.put("pier.dev/lb-class", "keep me");
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("web")
        .withUid(HOST_SERVICE)
        .withResourceVersion("42")
        .withCreationTimestamp("2026-01-01T00:00:00Z")
        .withGeneration(3L)
        .withFinalizers("federation.kubernetes.io/delete-from-underlying-clusters")
        .addNewOwnerReference()
        .withApiVersion("v1")
        .withKind("ConfigMap")
        .withName("owner")
        .withUid("o1")
        .endOwnerReference()
        .addNewManagedField()
        .withManager("kubectl")
        .endManagedField()
        .withLabels(labels)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withClusterIP("10.0.0.10")
        .withClusterIPs("10.0.0.10")
        .withIpFamilies("IPv4")
        .withIpFamilyPolicy("SingleStack")
        .withSelector(Map.of("app", "web"))
        .withSessionAffinity("None")
        .withExternalTrafficPolicy("Local")
        .withHealthCheckNodePort(31999)
        .withInternalTrafficPolicy("Cluster")
        .withAllocateLoadBalancerNodePorts(true)
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withTargetPort(new IntOrString(8080))
        .withNodePort(30080)
        .endPort()
        .addNewPort()
        .withName("dns")
        .withProtocol("UDP")
        .withPort(53)
        .withTargetPort(new IntOrString(53))
        .withNodePort(30053)
        .endPort()
        .endSpec()
        .withNewStatus()
        .withNewLoadBalancer()
        .addNewIngress()
        .withIp("203.0.113.1")
        .endIngress()
        .endLoadBalancer()
        .endStatus()
        .build();
  }

  private static Service desired() {
    return MemberServices.desired(host(), FED, HOST_CLUSTER, HOST_SERVICE);
  }

  /** The member copy as the member's API server keeps it after creating desired(). */
  private static Service created() {
    Service d = desired();
    return new ServiceBuilder(d)
        .editMetadata()
        .withUid("member-uid")
        .withResourceVersion("7")
        .withCreationTimestamp("2026-02-01T00:00:00Z")
        .withFinalizers("service.kubernetes.io/load-balancer-cleanup")
        .endMetadata()
        .editSpec()
        .withClusterIP("10.96.0.5")
        .withClusterIPs("10.96.0.5")
        .withIpFamilies("IPv4")
        .withIpFamilyPolicy("SingleStack")
        .withHealthCheckNodePort(32111)
        .editFirstPort()
        .withNodePort(31080)
        .endPort()
        .editLastPort()
        .withNodePort(31053)
        .endPort()
        .endSpec()
        .withNewStatus()
        .withNewLoadBalancer()
        .addNewIngress()
        .withIp("198.51.100.7")
        .endIngress()
        .endLoadBalancer()
        .endStatus()
        .build();
  }

  private static Service member(Map<String, String> labels, Map<String, String> annotations) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("web")
        .withLabels(labels)
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }

  private static Service edit(Service s, UnaryOperator<ServiceBuilder> change) {
    return change.apply(new ServiceBuilder(s)).build();
  }

  @Test
  void externalIpsNeverReachAMember() {
    Service withExternalIps =
        new ServiceBuilder(host()).editSpec().withExternalIPs("203.0.113.7").endSpec().build();
    Service desired = MemberServices.desired(withExternalIps, FED, HOST_CLUSTER, HOST_SERVICE);
    assertThat(desired.getSpec().getExternalIPs()).isNullOrEmpty();
    // A copy that carries them (made before, or edited in the member) loses them.
    Service existing =
        new ServiceBuilder(desired)
            .editMetadata()
            .withUid("m1")
            .endMetadata()
            .editSpec()
            .withExternalIPs("203.0.113.7")
            .endSpec()
            .build();
    Service update = MemberServices.update(desired, existing);
    assertThat(update).isNotNull();
    assertThat(update.getSpec().getExternalIPs()).isNullOrEmpty();
    // The API server omits an empty list, which reads back empty: that is no difference.
    Service readBack =
        new ServiceBuilder(update).editSpec().withExternalIPs(new ArrayList<>()).endSpec().build();
    assertThat(MemberServices.update(desired, readBack)).isNull();
  }

  @Test
  void ownershipAbsentWhenThereIsNoMemberService() {
    assertThat(MemberServices.ownership(null, FED, HOST_CLUSTER)).isEqualTo(Ownership.ABSENT);
  }

  @Test
  void ownershipForeignWithoutTheLabel() {
    Service s = member(null, Map.of(FederationKeys.HOST_CLUSTER_UID_ANNOTATION, HOST_CLUSTER));
    assertThat(MemberServices.ownership(s, FED, HOST_CLUSTER)).isEqualTo(Ownership.FOREIGN);
    assertThat(MemberServices.ownership(member(null, null), FED, HOST_CLUSTER))
        .isEqualTo(Ownership.FOREIGN);
  }

  @Test
  void ownershipForeignForAnotherFederationsLabel() {
    Service s =
        member(
            Map.of(FederationKeys.FEDERATION_LABEL, "other"),
            Map.of(FederationKeys.HOST_CLUSTER_UID_ANNOTATION, HOST_CLUSTER));
    assertThat(MemberServices.ownership(s, FED, HOST_CLUSTER)).isEqualTo(Ownership.FOREIGN);
  }

  @Test
  void ownershipForeignForAnotherHostCluster() {
    Service other =
        member(
            Map.of(FederationKeys.FEDERATION_LABEL, FED),
            Map.of(FederationKeys.HOST_CLUSTER_UID_ANNOTATION, "another-host"));
    assertThat(MemberServices.ownership(other, FED, HOST_CLUSTER)).isEqualTo(Ownership.FOREIGN);
    Service none = member(Map.of(FederationKeys.FEDERATION_LABEL, FED), null);
    assertThat(MemberServices.ownership(none, FED, HOST_CLUSTER)).isEqualTo(Ownership.FOREIGN);
  }

  @Test
  void ownedEvenWhenTheHostServiceWasRecreated() {
    Service s =
        member(
            Map.of(FederationKeys.FEDERATION_LABEL, FED),
            Map.of(
                FederationKeys.HOST_CLUSTER_UID_ANNOTATION,
                HOST_CLUSTER,
                FederationKeys.HOST_SERVICE_UID_ANNOTATION,
                "an-older-host-service"));
    assertThat(MemberServices.ownership(s, FED, HOST_CLUSTER)).isEqualTo(Ownership.OWNED);
    assertThat(MemberServices.ownership(desired(), FED, HOST_CLUSTER)).isEqualTo(Ownership.OWNED);
  }

  @Test
  void desiredKeepsTheNameAndNamespaceAndNoServerFields() {
    Service d = desired();
    assertThat(d.getApiVersion()).isEqualTo("v1");
    assertThat(d.getKind()).isEqualTo("Service");
    assertThat(d.getMetadata().getNamespace()).isEqualTo("shop");
    assertThat(d.getMetadata().getName()).isEqualTo("web");
    assertThat(d.getMetadata().getUid()).isNull();
    assertThat(d.getMetadata().getResourceVersion()).isNull();
    assertThat(d.getMetadata().getCreationTimestamp()).isNull();
    assertThat(d.getMetadata().getGeneration()).isNull();
    assertThat(d.getMetadata().getFinalizers()).isEmpty();
    assertThat(d.getMetadata().getOwnerReferences()).isEmpty();
    assertThat(d.getMetadata().getManagedFields()).isEmpty();
    assertThat(d.getStatus()).isNull();
  }

  @Test
  void desiredStripsExactlyFederationsKeysAndAddsItsMarks() {
    Service d = desired();
    assertThat(d.getMetadata().getLabels())
        .containsExactlyInAnyOrderEntriesOf(Map.of("app", "web", "pier.dev/federation", FED));
    assertThat(d.getMetadata().getAnnotations())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "team", "shop",
                "kubectl.kubernetes.io/restartedAt", "now",
                "pier.dev/lb-class", "keep me",
                "pier.dev/host-cluster-uid", HOST_CLUSTER,
                "pier.dev/host-service-uid", HOST_SERVICE,
                "pier.dev/copied-keys",
                    "labels=app;annotations=kubectl.kubernetes.io/restartedAt,pier.dev/lb-class,team"));
  }

  @Test
  void desiredDropsWhatEachClusterAllocates() {
    Service d = desired();
    assertThat(d.getSpec().getClusterIP()).isNull();
    assertThat(d.getSpec().getClusterIPs()).isNullOrEmpty();
    assertThat(d.getSpec().getIpFamilies()).isNullOrEmpty();
    assertThat(d.getSpec().getIpFamilyPolicy()).isNull();
    assertThat(d.getSpec().getHealthCheckNodePort()).isNull();
    assertThat(d.getSpec().getPorts()).extracting(ServicePort::getNodePort).containsOnlyNulls();
  }

  @Test
  void desiredKeepsTheRestOfTheSpec() {
    Service d = desired();
    assertThat(d.getSpec().getType()).isEqualTo("LoadBalancer");
    assertThat(d.getSpec().getSelector()).isEqualTo(Map.of("app", "web"));
    assertThat(d.getSpec().getExternalTrafficPolicy()).isEqualTo("Local");
    assertThat(d.getSpec().getSessionAffinity()).isEqualTo("None");
    assertThat(d.getSpec().getAllocateLoadBalancerNodePorts()).isTrue();
    assertThat(d.getSpec().getPorts())
        .extracting(ServicePort::getName, ServicePort::getProtocol, ServicePort::getPort)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("http", "TCP", 80),
            org.assertj.core.groups.Tuple.tuple("dns", "UDP", 53));
    assertThat(d.getSpec().getPorts().get(0).getTargetPort()).isEqualTo(new IntOrString(8080));
  }

  @Test
  void desiredDoesNotChangeTheHost() {
    Service h = host();
    MemberServices.desired(h, FED, HOST_CLUSTER, HOST_SERVICE);
    assertThat(h).isEqualTo(host());
    assertThat(h.getSpec().getPorts().get(0).getNodePort()).isEqualTo(30080);
  }

  @Test
  void desiredKeepsHeadless() {
    Service headless =
        edit(
            host(),
            b ->
                b.editSpec()
                    .withType("ClusterIP")
                    .withClusterIP("None")
                    .withClusterIPs("None")
                    .endSpec());
    Service d = MemberServices.desired(headless, FED, HOST_CLUSTER, HOST_SERVICE);
    assertThat(d.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(d.getSpec().getClusterIPs()).containsExactly("None");
  }

  @Test
  void updateIsNullWhenTheMemberMatches() {
    assertThat(MemberServices.update(desired(), created())).isNull();
  }

  @Test
  void updateIsNullWhenTheMemberHoldsDefaultsDesiredLeavesUnset() {
    Service sparse =
        edit(
            desired(),
            b ->
                b.editSpec()
                    .withType(null)
                    .withSessionAffinity(null)
                    .withInternalTrafficPolicy(null)
                    .withExternalTrafficPolicy(null)
                    .withAllocateLoadBalancerNodePorts(null)
                    .withHealthCheckNodePort(null)
                    .editFirstPort()
                    .withProtocol(null)
                    .withTargetPort(null)
                    .withPort(8080)
                    .endPort()
                    .endSpec());
    Service member =
        edit(
            created(),
            b ->
                b.editSpec()
                    .withType("ClusterIP")
                    .withExternalTrafficPolicy(null)
                    .withHealthCheckNodePort(null)
                    .withAllocateLoadBalancerNodePorts(null)
                    .editFirstPort()
                    .withPort(8080)
                    .withTargetPort(new IntOrString(8080))
                    .withNodePort(null)
                    .endPort()
                    .editLastPort()
                    .withNodePort(null)
                    .endPort()
                    .endSpec());
    assertThat(MemberServices.update(sparse, member)).isNull();
    Service affinity = edit(member, b -> b.editSpec().withSessionAffinity("ClientIP").endSpec());
    assertThat(MemberServices.update(sparse, affinity)).isNotNull();
  }

  @Test
  void aRenamedPortKeepsItsNodePortSoTheMembersLoadBalancerStays() {
    Service renamed =
        edit(desired(), b -> b.editSpec().editFirstPort().withName("web").endPort().endSpec());
    Service write = MemberServices.update(renamed, created());
    assertThat(write).isNotNull();
    assertThat(write.getSpec().getPorts().get(0).getName()).isEqualTo("web");
    assertThat(write.getSpec().getPorts().get(0).getNodePort()).isEqualTo(31080);
    assertThat(write.getSpec().getPorts().get(1).getNodePort()).isEqualTo(31053);
  }

  @Test
  void updateKeepsWhatTheMemberAllocatedAndItsOwnMetadata() {
    Service changed =
        edit(desired(), b -> b.editSpec().editFirstPort().withPort(81).endPort().endSpec());
    Service changedDns =
        edit(
            changed,
            b ->
                b.editSpec()
                    .editLastPort()
                    .withTargetPort(new IntOrString(5353))
                    .endPort()
                    .endSpec());
    Service write = MemberServices.update(changedDns, created());
    assertThat(write).isNotNull();
    assertThat(write.getSpec().getClusterIP()).isEqualTo("10.96.0.5");
    assertThat(write.getSpec().getClusterIPs()).containsExactly("10.96.0.5");
    assertThat(write.getSpec().getIpFamilies()).containsExactly("IPv4");
    assertThat(write.getSpec().getIpFamilyPolicy()).isEqualTo("SingleStack");
    assertThat(write.getSpec().getHealthCheckNodePort()).isEqualTo(32111);
    // port 81 is a new port (the match is port and protocol): the member allocates it afresh
    assertThat(write.getSpec().getPorts().get(0).getPort()).isEqualTo(81);
    assertThat(write.getSpec().getPorts().get(0).getNodePort()).isNull();
    assertThat(write.getSpec().getPorts().get(1).getNodePort()).isEqualTo(31053);
    assertThat(write.getSpec().getPorts().get(1).getTargetPort()).isEqualTo(new IntOrString(5353));
    assertThat(write.getMetadata().getUid()).isEqualTo("member-uid");
    assertThat(write.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(write.getMetadata().getFinalizers())
        .containsExactly("service.kubernetes.io/load-balancer-cleanup");
    assertThat(write.getMetadata().getLabels()).isEqualTo(desired().getMetadata().getLabels());
    assertThat(write.getMetadata().getAnnotations())
        .isEqualTo(desired().getMetadata().getAnnotations());
  }

  @Test
  void nodePortsMatchByNameProtocolAndPortNotPosition() {
    Service reordered =
        edit(
            desired(),
            b -> {
              List<ServicePort> ports = b.buildSpec().getPorts();
              return b.editSpec().withPorts(ports.get(1), ports.get(0)).endSpec();
            });
    Service write = MemberServices.update(reordered, created());
    assertThat(write).isNotNull();
    assertThat(write.getSpec().getPorts())
        .extracting(ServicePort::getName, ServicePort::getNodePort)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("dns", 31053),
            org.assertj.core.groups.Tuple.tuple("http", 31080));
    Service protocolChanged =
        edit(desired(), b -> b.editSpec().editLastPort().withProtocol("TCP").endPort().endSpec());
    Service w2 = MemberServices.update(protocolChanged, created());
    assertThat(w2.getSpec().getPorts().get(1).getNodePort()).isNull();
    assertThat(w2.getSpec().getPorts().get(0).getNodePort()).isEqualTo(31080);
  }

  @Test
  void updateWhenTheSelectorChanges() {
    Service changed =
        edit(desired(), b -> b.editSpec().withSelector(Map.of("app", "web2")).endSpec());
    Service write = MemberServices.update(changed, created());
    assertThat(write).isNotNull();
    assertThat(write.getSpec().getSelector()).isEqualTo(Map.of("app", "web2"));
  }

  @Test
  void updateWhenALabelChanges() {
    Service changed = edit(desired(), b -> b.editMetadata().addToLabels("tier", "a").endMetadata());
    assertThat(MemberServices.update(changed, created()).getMetadata().getLabels())
        .containsEntry("tier", "a");
  }

  /**
   * Another controller in the member (kube-vip, a policy engine, a webhook) adds its labels and
   * annotations to a copy: they stay, and cause no write; only the keys Pier copied follow the
   * host, including one the host dropped, which goes.
   */
  @Test
  void keysAnotherControllerAddsStayAndCauseNoWrite() {
    Service theirs =
        edit(
            created(),
            b ->
                b.editMetadata()
                    .addToLabels("policy.example.com/checked", "true")
                    .addToAnnotations("kube-vip.io/vipHost", "node-1")
                    .endMetadata());
    assertThat(MemberServices.update(desired(), theirs)).isNull();

    Service write =
        MemberServices.update(
            MemberServices.desired(
                edit(host(), h -> h.editMetadata().removeFromLabels("app").endMetadata()),
                FED,
                HOST_CLUSTER,
                HOST_SERVICE),
            theirs);
    assertThat(write).isNotNull();
    assertThat(write.getMetadata().getLabels())
        .doesNotContainKey("app")
        .containsEntry("policy.example.com/checked", "true");
    assertThat(write.getMetadata().getAnnotations()).containsEntry("kube-vip.io/vipHost", "node-1");
  }

  /** A copy written before Pier kept its copied keys: no key of it is taken for Pier's. */
  @Test
  void aCopyThatDoesNotSayWhatPierCopiedLosesNoKey() {
    Service old =
        edit(
            created(),
            b ->
                b.editMetadata()
                    .removeFromAnnotations("pier.dev/copied-keys")
                    .addToLabels("gone-from-host", "x")
                    .endMetadata());
    Service write = MemberServices.update(desired(), old);
    assertThat(write).isNotNull();
    assertThat(write.getMetadata().getLabels()).containsEntry("gone-from-host", "x");
    assertThat(write.getMetadata().getAnnotations()).containsKey("pier.dev/copied-keys");
  }

  @Test
  void updateWhenAnAnnotationChanges() {
    Service changed =
        edit(desired(), b -> b.editMetadata().addToAnnotations("team", "other").endMetadata());
    assertThat(MemberServices.update(changed, created()).getMetadata().getAnnotations())
        .containsEntry("team", "other");
    Service newHostUid =
        MemberServices.desired(host(), FED, HOST_CLUSTER, "recreated-host-service");
    assertThat(
            MemberServices.update(newHostUid, created())
                .getMetadata()
                .getAnnotations()
                .get(FederationKeys.HOST_SERVICE_UID_ANNOTATION))
        .isEqualTo("recreated-host-service");
  }

  @Test
  void nodePortsAndHealthCheckPortAreNotCarriedWhereTheServerRefusesThem() {
    Service clusterIp =
        edit(
            desired(),
            b ->
                b.editSpec()
                    .withType("ClusterIP")
                    .withExternalTrafficPolicy(null)
                    .withAllocateLoadBalancerNodePorts(null)
                    .endSpec());
    Service write = MemberServices.update(clusterIp, created());
    assertThat(write.getSpec().getPorts()).extracting(ServicePort::getNodePort).containsOnlyNulls();
    assertThat(write.getSpec().getHealthCheckNodePort()).isNull();
    assertThat(write.getSpec().getClusterIP()).isEqualTo("10.96.0.5");
    Service clusterPolicy =
        edit(desired(), b -> b.editSpec().withExternalTrafficPolicy("Cluster").endSpec());
    Service w2 = MemberServices.update(clusterPolicy, created());
    assertThat(w2.getSpec().getHealthCheckNodePort()).isNull();
    assertThat(w2.getSpec().getPorts().get(0).getNodePort()).isEqualTo(31080);
  }

  @Test
  void updateDoesNotChangeItsArguments() {
    Service d = desired();
    Service e = created();
    Service changed = edit(d, b -> b.editSpec().withSelector(Map.of("x", "y")).endSpec());
    MemberServices.update(changed, e);
    assertThat(changed.getSpec().getClusterIP()).isNull();
    assertThat(e).isEqualTo(created());
  }
}
