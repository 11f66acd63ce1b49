package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
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
}
