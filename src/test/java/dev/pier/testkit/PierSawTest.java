package dev.pier.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The proof helper against a real API server where no Pier runs: every "nothing happened" check
 * holds there, and the proof that Pier saw the object must not.
 */
@RealKubeApiServer
class PierSawTest {
  private static final Duration SHORT = Duration.ofSeconds(2);

  private final KubeApiServer kube;

  PierSawTest(KubeApiServer kube) {
    this.kube = kube;
  }

  @Test
  void withoutPierTheAbsenceCheckHoldsAndTheProofFailsNamingTheService() {
    String ns = kube.createNamespace("saw-none");
    Service svc = create(ns, "web");

    // What a "nothing happened" check looks at holds without any Pier: no ingress, no Event.
    assertThat(Services.ingressIp(kube.client(), ns, "web")).isNull();
    assertThat(Services.events(kube.client(), ns, "web")).isEmpty();
    assertThatThrownBy(() -> PierSaw.event(kube.client(), svc, SHORT, "EnsuredLoadBalancer"))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("Pier never showed it saw " + ns + "/web: no Event about uid")
        .hasMessageContaining(svc.getMetadata().getUid());
  }

  @Test
  void anEventAboutAnEarlierServiceOfTheSameNameIsNoProof() {
    String ns = kube.createNamespace("saw-earlier");
    Service earlier = create(ns, "web");
    record(earlier, "Warning", "DNSRecordConflict");
    kube.client().services().inNamespace(ns).withName("web").delete();
    Service now = create(ns, "web");

    assertThatThrownBy(() -> PierSaw.event(kube.client(), now, SHORT, "DNSRecordConflict"))
        .hasMessageStartingWith("Pier never showed it saw " + ns + "/web")
        .hasMessageContaining("uid " + earlier.getMetadata().getUid());
    record(now, "Normal", "EnsuredLoadBalancer");
    assertThatThrownBy(() -> PierSaw.event(kube.client(), now, SHORT, "DNSRecordConflict"))
        .hasMessageContaining("with reason [DNSRecordConflict]");
    assertThat(PierSaw.event(kube.client(), now, SHORT, "EnsuredLoadBalancer").getReason())
        .isEqualTo("EnsuredLoadBalancer");
    assertThat(PierSaw.event(kube.client(), now, SHORT)).isNotNull();
  }

  @Test
  void onlyALineLoggedAfterTheMarkAboutThatServiceIsProof() {
    AtomicReference<String> log =
        new AtomicReference<>(
            "2026-01-01T00:00:00.000Z INFO  [vert.x-eventloop-thread-1] ServiceReconciler -"
                + " Service default/shop/web: stopped: not the leader (any more): status not"
                + " done\n");
    PierSaw.LogMark mark = PierSaw.LogMark.now(log::get);

    assertThatThrownBy(() -> PierSaw.logged(mark, "shop", "web", "not the leader", SHORT))
        .hasMessageStartingWith("Pier never showed it saw shop/web: no line matching");
    log.set(
        log.get()
            + "... - Service default/shop/webshop: stopped: not the leader (any more)\n"
            + "... - Service default/other/web: stopped: not the leader (any more)\n");
    assertThatThrownBy(() -> PierSaw.logged(mark, "shop", "web", "not the leader", SHORT))
        .hasMessageStartingWith("Pier never showed it saw shop/web");
    assertThat(PierSaw.logged(mark, "shop", null, "not the leader", SHORT))
        .contains("Service default/shop/webshop:");
    log.set(log.get() + "... - Service east/shop/web: stopped: not the leader (any more)\n");
    assertThat(PierSaw.logged(mark, "shop", "web", "not the leader", SHORT))
        .contains("Service east/shop/web:");
  }

  @Test
  void aLineLoggedBeforeTheMarkIsNoProof() {
    AtomicReference<String> log =
        new AtomicReference<>("... Pier - Lost the Lease ops/pier as pier-one_1: stopped\n");
    PierSaw.LogMark mark = PierSaw.LogMark.now(log::get);
    Pattern lost = Pattern.compile("Lost the Lease ops/pier as \\S+: stopped");

    assertThatThrownBy(() -> PierSaw.logged(mark, "the loss of Lease ops/pier", lost, SHORT))
        .hasMessageStartingWith(
            "Pier never showed it saw the loss of Lease ops/pier: no line matching");
    log.set(log.get() + "... Pier - Lost the Lease ops/pier as pier-one_1: stopped again\n");
    assertThat(PierSaw.logged(mark, "the loss of Lease ops/pier", lost, SHORT))
        .endsWith("stopped again");
  }

  @Test
  void aCounterThatDoesNotRiseIsNoProof() {
    assertThatThrownBy(() -> PierSaw.counted("shop/web", "pier_runs", 3, () -> 3, SHORT))
        .hasMessage(
            "Pier never showed it saw shop/web: pier_runs stayed at 3.0, not above 3.0 within "
                + SHORT);
    assertThat(PierSaw.counted("shop/web", "pier_runs", 3, () -> 4, SHORT)).isEqualTo(4);
  }

  private Service create(String ns, String name) {
    return kube.client()
        .services()
        .inNamespace(ns)
        .resource(Services.loadBalancer(ns, name, 80, kube.freeNodePort()))
        .create();
  }

  /** An Event as Pier records one about the Service. */
  private void record(Service svc, String type, String reason) {
    KubernetesClient client = kube.client();
    client
        .v1()
        .events()
        .inNamespace(svc.getMetadata().getNamespace())
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withGenerateName(svc.getMetadata().getName() + ".")
                .endMetadata()
                .withNewInvolvedObject()
                .withKind("Service")
                .withApiVersion("v1")
                .withNamespace(svc.getMetadata().getNamespace())
                .withName(svc.getMetadata().getName())
                .withUid(svc.getMetadata().getUid())
                .endInvolvedObject()
                .withType(type)
                .withReason(reason)
                .withMessage(reason + " in a test")
                .build())
        .create();
  }
}
