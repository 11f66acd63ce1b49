package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.policy.ServiceFilter;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TrimmingItemStoreTest {

  @Test
  void dropsManagedFieldsAndLastAppliedButKeepsWhatPierReads() {
    Service svc =
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace("ns")
            .withName("web")
            .withManagedFields(new ManagedFieldsEntry())
            .addToAnnotations(TrimmingItemStore.LAST_APPLIED, "{\"big\":true}")
            .addToAnnotations("example.com/keep", "yes")
            .addToFinalizers("service.kubernetes.io/load-balancer-cleanup")
            .endMetadata()
            .withNewSpec()
            .withType("LoadBalancer")
            .endSpec()
            .build();
    TrimmingItemStore<Service> store = new TrimmingItemStore<>();
    store.put(store.getKey(svc), svc);

    Service cached = store.get("ns/web");
    assertThat(cached.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(cached.getMetadata().getAnnotations())
        .containsOnlyKeys("example.com/keep")
        .containsEntry("example.com/keep", "yes");
    assertThat(cached.getMetadata().getFinalizers())
        .containsExactly("service.kubernetes.io/load-balancer-cleanup");
    assertThat(cached.getSpec().getType()).isEqualTo("LoadBalancer");
  }

  /**
   * A federation copy keeps what Pier's server-side apply decides on: its own managers' entries.
   */
  @Test
  void aCopyKeepsOnlyPiersManagedFieldsEntries() {
    ManagedFieldsEntry apply = new ManagedFieldsEntry();
    apply.setManager("pier-federation");
    apply.setOperation("Apply");
    ManagedFieldsEntry legacy = new ManagedFieldsEntry();
    legacy.setManager("fabric8-kubernetes-client");
    legacy.setOperation("Update");
    ManagedFieldsEntry theirs = new ManagedFieldsEntry();
    theirs.setManager("kube-vip");
    theirs.setOperation("Update");
    Service copy =
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace("ns")
            .withName("web")
            .addToLabels("pier.dev/federation", "pier")
            .withManagedFields(apply, theirs, legacy)
            .endMetadata()
            .build();
    TrimmingItemStore<Service> store = new TrimmingItemStore<>();
    store.put(store.getKey(copy), copy);
    assertThat(store.get("ns/web").getMetadata().getManagedFields())
        .extracting(ManagedFieldsEntry::getManager)
        .containsExactly("pier-federation", "fabric8-kubernetes-client");

    Service other =
        new ServiceBuilder(copy)
            .editMetadata()
            .withName("other")
            .withLabels(null)
            .endMetadata()
            .build();
    store.put(store.getKey(other), other);
    assertThat(store.get("ns/other").getMetadata().getManagedFields()).isNullOrEmpty();
  }

  @Test
  void dropsANodesImageList() {
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("n1")
            .endMetadata()
            .withNewStatus()
            .withImages(new ContainerImage(List.of("registry/image:1"), 1000L))
            .addNewAddress("10.0.0.1", "InternalIP")
            .endStatus()
            .build();
    TrimmingItemStore<Node> store = new TrimmingItemStore<>();
    store.put(store.getKey(node), node);
    assertThat(store.get("n1").getStatus().getImages()).isNullOrEmpty();
    assertThat(store.get("n1").getStatus().getAddresses()).hasSize(1);
  }

  private static final String BIG = "x".repeat(200 * 1024);

  private static Service clusterIp(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName(name)
        .withUid("uid-" + name)
        .withResourceVersion("7")
        .withCreationTimestamp("2024-01-01T00:00:00Z")
        .withDeletionTimestamp("2024-01-02T00:00:00Z")
        .addToAnnotations("example.com/huge", BIG)
        .addToLabels("app", "web")
        .addToLabels("example.com/huge-" + BIG.substring(0, 40), "v")
        .addToFinalizers("example.com/hold")
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .withClusterIP("10.0.0.1")
        .withSelector(Map.of("app", "web"))
        .addNewPort()
        .withPort(80)
        .endPort()
        .endSpec()
        .withNewStatus()
        .withNewLoadBalancer()
        .endLoadBalancer()
        .endStatus()
        .build();
  }

  /**
   * A Service Pier neither serves nor federates is cached as a stub: who it is and what decides
   * that it is not Pier's, nothing a tenant can make large.
   */
  @Test
  void aServicePierDoesNotServeIsCachedAsAStub() {
    Service svc = clusterIp("web");
    TrimmingItemStore<Service> store = new TrimmingItemStore<>();
    store.put(store.getKey(svc), svc);

    Service cached = store.get("ns/web");
    // Handlers get the object the store keeps: the stub, never a whole object beside it.
    assertThat(cached).isSameAs(svc);
    assertThat(cached.getMetadata().getName()).isEqualTo("web");
    assertThat(cached.getMetadata().getNamespace()).isEqualTo("ns");
    assertThat(cached.getMetadata().getUid()).isEqualTo("uid-web");
    assertThat(cached.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(cached.getMetadata().getDeletionTimestamp()).isEqualTo("2024-01-02T00:00:00Z");
    assertThat(cached.getMetadata().getAnnotations()).isNullOrEmpty();
    assertThat(cached.getMetadata().getLabels()).isNullOrEmpty();
    assertThat(cached.getMetadata().getFinalizers()).isNullOrEmpty();
    assertThat(cached.getSpec().getType()).isEqualTo("ClusterIP");
    assertThat(cached.getSpec().getPorts()).isNullOrEmpty();
    assertThat(cached.getSpec().getSelector()).isNullOrEmpty();
    assertThat(cached.getStatus()).isNull();
  }

  @Test
  void aStubKeepsItsClassAndPiersOwnLabels() {
    Service svc = clusterIp("web");
    svc.getSpec().setLoadBalancerClass("example.com/other");
    svc.getMetadata().getLabels().put("pier.dev/something", "x");
    TrimmingItemStore.trim(svc);
    assertThat(svc.getSpec().getLoadBalancerClass()).isEqualTo("example.com/other");
    assertThat(svc.getMetadata().getLabels()).containsOnlyKeys("pier.dev/something");
  }

  /** What Pier serves, federates, copies or still has to clean up stays whole. */
  @Test
  void keepsWholeWhatPierServesFederatesCopiesOrCleansUp() {
    Service lb = clusterIp("lb");
    lb.getSpec().setType("LoadBalancer");
    Service federated = clusterIp("federated");
    federated.getMetadata().getAnnotations().put("pier.dev/federated", "true");
    Service copy = clusterIp("copy");
    copy.getMetadata().getLabels().put("pier.dev/federation", "pier");
    Service cleanup = clusterIp("cleanup");
    cleanup.getMetadata().getFinalizers().add(ServiceFilter.LB_CLEANUP_FINALIZER);
    Service unfederating = clusterIp("unfederating");
    unfederating
        .getMetadata()
        .getFinalizers()
        .add("federation.kubernetes.io/delete-from-underlying-clusters");
    Service wholeNamespace = clusterIp("ns-federated");
    wholeNamespace.getMetadata().setNamespace("fed");
    // Turned ClusterIP with its finalizer stripped: its load balancer and status still go.
    Service served =
        new io.fabric8.kubernetes.api.model.ServiceBuilder(clusterIp("served"))
            .withNewStatus()
            .withNewLoadBalancer()
            .addNewIngress()
            .withIp("192.0.2.7")
            .endIngress()
            .endLoadBalancer()
            .endStatus()
            .build();

    TrimmingItemStore<Service> store = new TrimmingItemStore<>(Set.of("fed"));
    for (Service s : List.of(lb, federated, copy, cleanup, unfederating, wholeNamespace, served)) {
      store.put(store.getKey(s), s);
      Service cached = store.get(store.getKey(s));
      assertThat(cached.getMetadata().getAnnotations())
          .as(s.getMetadata().getName())
          .containsEntry("example.com/huge", BIG);
      assertThat(cached.getSpec().getPorts()).as(s.getMetadata().getName()).hasSize(1);
      assertThat(cached.getMetadata().getLabels()).as(s.getMetadata().getName()).containsKey("app");
    }
  }

  /**
   * A stub never makes the load-balancer handler see a change; a Service that turns LoadBalancer
   * arrives whole in its event and is seen as new work.
   */
  @Test
  void aStubNeverLooksLikeAChangeAndTurningLoadBalancerDoes() {
    ServiceFilter filter = new ServiceFilter(Set.of());
    Service before = TrimmingItemStore.trim(clusterIp("web"));
    Service again = TrimmingItemStore.trim(clusterIp("web"));
    again.getMetadata().setResourceVersion("8");
    assertThat(filter.shouldEnqueueUpdate(before, again)).isFalse();
    Service whole = clusterIp("web");
    assertThat(filter.shouldEnqueueUpdate(before, whole)).isFalse();

    Service turned = clusterIp("web");
    turned.getSpec().setType("LoadBalancer");
    turned.getMetadata().setDeletionTimestamp(null);
    assertThat(filter.shouldEnqueueUpdate(before, TrimmingItemStore.trim(turned))).isTrue();
    assertThat(turned.getMetadata().getAnnotations()).containsKey("example.com/huge");
  }
}
