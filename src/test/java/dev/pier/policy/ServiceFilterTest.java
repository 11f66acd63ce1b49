package dev.pier.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class ServiceFilterTest {
  private final ServiceFilter filter = new ServiceFilter(Set.of("pier.dev/lb"));

  private static Service lb() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName("web")
        .withUid("u1")
        .withAnnotations(Map.of("a", "1"))
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withNodePort(30080)
        .withTargetPort(new IntOrString(8080))
        .endPort()
        .withExternalTrafficPolicy("Cluster")
        .withIpFamilies("IPv4")
        .endSpec()
        .build();
  }

  private static Service edit(Service s, UnaryOperator<ServiceBuilder> change) {
    return change.apply(new ServiceBuilder(s)).build();
  }

  @Test
  void wantsLoadBalancerOnlyForTypeLoadBalancerWithoutAForeignClass() {
    assertThat(filter.wantsLoadBalancer(lb())).isTrue();
    assertThat(
            filter.wantsLoadBalancer(edit(lb(), b -> b.editSpec().withType("ClusterIP").endSpec())))
        .isFalse();
    assertThat(
            filter.wantsLoadBalancer(
                edit(lb(), b -> b.editSpec().withLoadBalancerClass("other.io/lb").endSpec())))
        .isFalse();
    assertThat(
            filter.wantsLoadBalancer(
                edit(lb(), b -> b.editSpec().withLoadBalancerClass("pier.dev/lb").endSpec())))
        .isTrue();
  }

  @Test
  void needsCleanupWhenFinalizedAndDeletedOrNoLongerLoadBalancer() {
    Service withFinalizer =
        edit(
            lb(),
            b ->
                b.editMetadata()
                    .withFinalizers("service.kubernetes.io/load-balancer-cleanup")
                    .endMetadata());
    assertThat(filter.needsCleanup(withFinalizer)).isFalse();
    assertThat(
            filter.needsCleanup(
                edit(
                    withFinalizer,
                    b ->
                        b.editMetadata()
                            .withDeletionTimestamp("2026-01-01T00:00:00Z")
                            .endMetadata())))
        .isTrue();
    assertThat(
            filter.needsCleanup(
                edit(withFinalizer, b -> b.editSpec().withType("NodePort").endSpec())))
        .isTrue();
    assertThat(filter.needsCleanup(edit(lb(), b -> b.editSpec().withType("NodePort").endSpec())))
        .isFalse();
  }

  @Test
  void identicalObjectsNeedNoUpdate() {
    assertThat(filter.needsUpdate(lb(), lb())).isFalse();
  }

  @Test
  void statusAndUnrelatedChangesNeedNoUpdate() {
    Service changed =
        edit(
            lb(),
            b ->
                b.editMetadata()
                    .withResourceVersion("99")
                    .withLabels(Map.of("team", "x"))
                    .endMetadata()
                    .withNewStatus()
                    .withNewLoadBalancer()
                    .addNewIngress()
                    .withIp("1.2.3.4")
                    .endIngress()
                    .endLoadBalancer()
                    .endStatus());
    assertThat(filter.needsUpdate(lb(), changed)).isFalse();
  }

  /** Every change of upstream's list but the annotations: changes of what the Service asks for. */
  private static List<UnaryOperator<ServiceBuilder>> specChanges() {
    return List.of(
        b -> b.editSpec().withType("ClusterIP").endSpec(),
        b -> b.editSpec().withLoadBalancerSourceRanges("10.0.0.0/8").endSpec(),
        b -> b.editSpec().editFirstPort().withPort(81).endPort().endSpec(),
        b -> b.editSpec().editFirstPort().withNodePort(30081).endPort().endSpec(),
        b -> b.editSpec().editFirstPort().withProtocol("UDP").endPort().endSpec(),
        b -> b.editSpec().editFirstPort().withName("web").endPort().endSpec(),
        b -> b.editSpec().editFirstPort().withTargetPort(new IntOrString(9090)).endPort().endSpec(),
        b -> b.editSpec().editFirstPort().withAppProtocol("http").endPort().endSpec(),
        b -> b.editSpec().addNewPort().withPort(443).withNodePort(30443).endPort().endSpec(),
        b -> b.editSpec().withSessionAffinity("ClientIP").endSpec(),
        b -> b.editSpec().withLoadBalancerIP("127.240.0.9").endSpec(),
        b -> b.editSpec().withExternalIPs("1.1.1.1").endSpec(),
        b -> b.editMetadata().withUid("u2").endMetadata(),
        b -> b.editSpec().withExternalTrafficPolicy("Local").endSpec(),
        b -> b.editSpec().withHealthCheckNodePort(31000).endSpec(),
        b -> b.editSpec().withIpFamilies("IPv4", "IPv6").endSpec(),
        b -> b.editSpec().withLoadBalancerClass("other.io/lb").endSpec());
  }

  private static final UnaryOperator<ServiceBuilder> ANNOTATIONS =
      b -> b.editMetadata().withAnnotations(Map.of("a", "2")).endMetadata();

  @Test
  void everyFieldOfTheUpstreamListNeedsAnUpdate() {
    for (UnaryOperator<ServiceBuilder> change : specChanges()) {
      assertThat(filter.needsUpdate(lb(), edit(lb(), change))).as(change.toString()).isTrue();
    }
    assertThat(filter.needsUpdate(lb(), edit(lb(), ANNOTATIONS))).isTrue();
  }

  @Test
  void onlyAnAnnotationChangeIsOnlyAnAnnotationChange() {
    assertThat(filter.onlyAnnotationsChanged(lb(), edit(lb(), ANNOTATIONS))).isTrue();
    for (UnaryOperator<ServiceBuilder> change : specChanges()) {
      Service changed = edit(lb(), change);
      assertThat(filter.onlyAnnotationsChanged(lb(), changed)).as(change.toString()).isFalse();
      Service both = edit(changed, ANNOTATIONS);
      assertThat(filter.onlyAnnotationsChanged(lb(), both)).as(change.toString()).isFalse();
    }
    Service finalized =
        edit(
            lb(),
            b -> b.editMetadata().withFinalizers(ServiceFilter.LB_CLEANUP_FINALIZER).endMetadata());
    Service deleting =
        edit(
            finalized,
            b ->
                ANNOTATIONS
                    .apply(b)
                    .editMetadata()
                    .withDeletionTimestamp("2026-01-01T00:00:00Z")
                    .endMetadata());
    assertThat(filter.onlyAnnotationsChanged(finalized, deleting)).isFalse();
    assertThat(filter.onlyAnnotationsChanged(lb(), lb())).as("no change at all").isFalse();
  }

  @Test
  void servicesThatNeverWantedALoadBalancerNeverNeedAnUpdate() {
    Service a = edit(lb(), b -> b.editSpec().withType("ClusterIP").endSpec());
    Service c = edit(a, b -> b.editSpec().editFirstPort().withPort(81).endPort().endSpec());
    assertThat(filter.needsUpdate(a, c)).isFalse();
    assertThat(filter.shouldEnqueueAdd(a)).isFalse();
    assertThat(filter.shouldEnqueueAdd(lb())).isTrue();
  }

  @Test
  void aFederatedServiceOfTheHostGetsNoLoadBalancerThereButTheSameServiceElsewhereDoes() {
    ServiceFilter withHost =
        filter.withFederationHost(
            "host", svc -> "true".equals(svc.getMetadata().getAnnotations().get("fed")));
    Service federated =
        edit(lb(), b -> b.editMetadata().addToAnnotations("fed", "true").endMetadata());
    assertThat(withHost.forCluster("host").wantsLoadBalancer(federated)).isFalse();
    assertThat(withHost.forCluster("host").shouldEnqueueAdd(federated)).isFalse();
    assertThat(withHost.forCluster("host").wantsLoadBalancer(lb())).isTrue();
    // A member's copy of the same Service, or any other cluster, is served as always.
    assertThat(withHost.forCluster("east").wantsLoadBalancer(federated)).isTrue();
    assertThat(filter.forCluster("host").wantsLoadBalancer(federated)).isTrue();
  }

  @Test
  void aServedServiceThatItsUserFederatesIsCleanedUpOnlyWhenPierOwnsItsClass() {
    ServiceFilter host =
        filter
            .withFederationHost(
                "host", svc -> "true".equals(svc.getMetadata().getAnnotations().get("fed")))
            .forCluster("host");
    Service served =
        edit(
            lb(),
            b ->
                b.editMetadata()
                    .addToAnnotations("fed", "true")
                    .withFinalizers(ServiceFilter.LB_CLEANUP_FINALIZER)
                    .endMetadata());
    assertThat(host.needsCleanup(served)).isTrue();
    Service otherClass =
        edit(served, b -> b.editSpec().withLoadBalancerClass("other.io/lb").endSpec());
    assertThat(host.needsCleanup(otherClass)).isFalse();
  }
}
