package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RelistedHandlerTest {
  private final List<String> seen = new ArrayList<>();
  private final ResourceEventHandler<Service> handler =
      new ResourceEventHandler<>() {
        @Override
        public void onAdd(Service s) {
          seen.add("add " + s.getMetadata().getName());
        }

        @Override
        public void onUpdate(Service a, Service b) {
          seen.add(
              "update "
                  + b.getMetadata().getName()
                  + " "
                  + a.getMetadata().getResourceVersion()
                  + "->"
                  + b.getMetadata().getResourceVersion());
        }

        @Override
        public void onDelete(Service s, boolean unknown) {
          seen.add(
              "delete " + s.getMetadata().getName() + (unknown ? " (final state unknown)" : ""));
        }
      };

  private static Service svc(String name, String rv) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName(name)
        .withResourceVersion(rv)
        .endMetadata()
        .build();
  }

  @Test
  void theReplayOfANewListIsTurnedIntoWhatWasMissed() {
    Map<String, Service> before =
        Map.of(
            "ns/same",
            svc("same", "1"),
            "ns/changed",
            svc("changed", "2"),
            "ns/gone",
            svc("gone", "3"));
    RelistedHandler<Service> moved = new RelistedHandler<>(handler, before);
    // The new informer announces what it listed.
    moved.onAdd(svc("same", "1"));
    moved.onAdd(svc("changed", "7"));
    moved.onAdd(svc("new", "8"));
    moved.deletedWhileMissed(
        Map.of(
            "ns/same",
            svc("same", "1"),
            "ns/changed",
            svc("changed", "7"),
            "ns/new",
            svc("new", "8")));
    // Later events pass through; a key is replayed only once.
    moved.onAdd(svc("same", "9"));
    moved.onUpdate(svc("changed", "7"), svc("changed", "10"));

    assertThat(seen)
        .containsExactly(
            "update changed 2->7",
            "add new",
            "delete gone (final state unknown)",
            "add same",
            "update changed 7->10");
  }
}
