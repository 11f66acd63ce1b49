package dev.pier.faults;

import static dev.pier.faults.FaultSuite.CONVERGE;
import static dev.pier.faults.FaultSuite.loadBalancer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.faults.FaultProxy.Fault;
import dev.pier.testkit.EndpointSlices;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.PierSaw;
import dev.pier.testkit.PowerDnsServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;

/**
 * Fault suite: PowerDNS's API, behind a proxy, answers 429, 500, or never answers while Services
 * come and go. Calls end at {@code dns.callDeadline}, are retried, every name converges once the
 * fault is gone and stays so (a late call that put a deleted name back, or changed a live one, is
 * seen), and the records Pier did not write (one on a name a Service wants) are never touched.
 */
@RealKubeApiServer
class DnsFaultsIT {
  private static final String ZONE = "faults.test";
  private static final Duration FAULT = Duration.ofSeconds(8);

  /**
   * How long the names must keep their final state once they first show it, after each fault:
   * longer than {@code dns.callDeadline} (3 s) plus a retry, so that a call Pier made before the
   * names first showed it, answered late, would have landed.
   */
  private static final Duration NAMES_HOLD = Duration.ofSeconds(5);

  @Test
  void throttledFailingAndHungDnsCallsConvergeAndNoForeignRecordIsTouched(KubeApiServer kube)
      throws InterruptedException {
    KubernetesClient client = kube.client();
    kube.createReadyNode(FaultSuite.NODE, "127.0.0.1", Map.of());
    String ns = kube.createNamespace("dnsfault");
    try (PowerDnsServer pdns = PowerDnsServer.create();
        ReferenceWebhook webhook = ReferenceWebhook.start("");
        FaultProxy proxy = FaultProxy.start(pdns.apiUrl())) {
      pdns.createZone(ZONE + ".");
      pdns.putForeign(ZONE + ".", "foreign." + ZONE + ".", "A", "198.51.100.7");
      pdns.putForeign(ZONE + ".", name(ns, "taken"), "A", "198.51.100.8");

      Map<String, String> env = FaultSuite.webhook(webhook.url());
      env.putAll(pdns.pierEnv(ZONE, "faults", proxy.url()));
      env.put(PierOptions.DNS_CALL_DEADLINE.envName(), "3s");
      // Short retries (FaultSuite.shortRetries): each fault lasts 8 s and must see its calls
      // retried (at least two calls in it); at the shipped 5 s doubling a Service's DNS work would
      // be tried about twice in a fault, once after a hung call's 3 s deadline.
      FaultSuite.shortRetries(env);
      Invariants invariants =
          new Invariants(client, ns, new WebhookCloud(webhook)).foreignDnsRecords(pdns, ZONE + ".");
      Service taken = create(kube, ns, "taken");
      create(kube, ns, "steady");
      List<String> live = new ArrayList<>(List.of("steady"));
      List<String> gone = new ArrayList<>();
      try (PierProcess pier = FaultSuite.startJar(kube, "dns", env)) {
        // The foreign record at taken's name is untouched only once Pier tried that name.
        PierSaw.event(client, taken, PierProcess.STARTUP.plus(CONVERGE), "DNSRecordConflict");
        invariants.awaitHeld(CONVERGE);
        awaitNames(client, pdns, ns, List.of("steady"), List.of(), Duration.ZERO);
        for (Fault fault : List.of(Fault.TOO_MANY_REQUESTS, Fault.SERVER_ERROR, Fault.HANG)) {
          int before = proxy.calls().size();
          proxy.fault(fault);
          String fresh = "new-" + fault.name().toLowerCase().replace('_', '-');
          create(kube, ns, fresh);
          if (live.size() > 1) {
            String previous = live.remove(live.size() - 1);
            client.services().inNamespace(ns).withName(previous).delete();
            invariants.deleted(previous);
            gone.add(previous);
          }
          live.add(fresh);
          Thread.sleep(FAULT.toMillis());
          long faulted =
              proxy.calls().stream().skip(before).filter(c -> c.fault() == fault).count();
          assertThat(faulted).as(fault + ": calls during the fault").isGreaterThanOrEqualTo(2);
          proxy.fault(Fault.NONE);
          invariants.awaitHeld(CONVERGE);
          awaitNames(client, pdns, ns, live, gone, NAMES_HOLD);
        }
        invariants.awaitSettled(CONVERGE);
        awaitNames(client, pdns, ns, live, gone, Invariants.WINDOW);
        assertThat(pier.alive()).as(pier.log()).isTrue();
      }
    }
  }

  private static String name(String ns, String svc) {
    return svc + "." + ns + ".pier.svc." + ZONE + ".";
  }

  /**
   * Waits until each Service's name answers its ingress address and each deleted one's name is
   * gone, then checks that this keeps holding for {@code hold} (every poll of it must).
   */
  private static void awaitNames(
      KubernetesClient client,
      PowerDnsServer pdns,
      String ns,
      List<String> live,
      List<String> gone,
      Duration hold) {
    ConditionFactory await =
        await().atMost(CONVERGE.plus(hold)).pollInterval(Duration.ofMillis(500));
    if (!hold.isZero()) {
      await = await.during(hold);
    }
    await.untilAsserted(
        () -> {
          for (String svc : live) {
            assertThat(pdns.dig(name(ns, svc), "A"))
                .as(svc)
                .containsExactly(Services.ingressIp(client, ns, svc));
          }
          for (String svc : gone) {
            assertThat(pdns.digStatus(name(ns, svc), "A")).as(svc).isEqualTo("NXDOMAIN");
          }
        });
  }

  private static Service create(KubeApiServer kube, String ns, String name) {
    Service created =
        kube.client()
            .services()
            .inNamespace(ns)
            .resource(loadBalancer(ns, name, 80, kube.freeNodePort()))
            .create();
    EndpointSlices.write(kube.client(), ns, name, true);
    return created;
  }
}
