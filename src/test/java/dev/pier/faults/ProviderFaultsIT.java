package dev.pier.faults;

import static dev.pier.faults.FaultSuite.CONVERGE;
import static dev.pier.faults.FaultSuite.loadBalancer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.webhook.ReferenceWebhook;
import dev.pier.faults.FaultProxy.Call;
import dev.pier.faults.FaultProxy.Fault;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fault suite: the provider's API answers 429, 500, never answers, or trickles a byte a second and
 * never ends, while Services are created and changed. Pier retries with backoff (429: after its
 * Retry-After), ends hung and trickling calls at {@code reconcile.providerCallDeadline}, and
 * converges once the fault is gone.
 */
@RealKubeApiServer
class ProviderFaultsIT {
  private static final Duration CALL_DEADLINE = Duration.ofSeconds(3);
  private static final Duration FAULT = Duration.ofSeconds(10);

  @Test
  void throttledFailingHungAndTricklingCallsAreRetriedEndedAndConvergeAfterwards(KubeApiServer kube)
      throws InterruptedException {
    KubernetesClient client = kube.client();
    kube.createReadyNode(FaultSuite.NODE, "127.0.0.1", Map.of());
    String ns = kube.createNamespace("provider");
    try (ReferenceWebhook webhook = ReferenceWebhook.start("");
        FaultProxy proxy = FaultProxy.start(webhook.url())) {
      Map<String, String> env = FaultSuite.webhook(proxy.url());
      env.put(
          PierOptions.RECONCILE_PROVIDER_CALL_DEADLINE.envName(), CALL_DEADLINE.toSeconds() + "s");
      // A call is two attempts of at most 2 s each (webhook.timeout, which also gives the
      // connection back): the call deadline of 3 s ends the call first and frees the Service.
      env.put(PierOptions.WEBHOOK_TIMEOUT.envName(), "2s");
      // Retries within a 10 s fault: the 500 fault must show growing waits (500 ms, 1 s, 2 s, 4 s)
      // and the hung and trickling calls must be tried again several times while the fault lasts;
      // at the shipped 5 s doubling a Service would be tried about twice in one.
      env.put(PierOptions.RECONCILE_MIN_RETRY_DELAY.envName(), "500ms");
      env.put(PierOptions.RECONCILE_MAX_RETRY_DELAY.envName(), "4s");
      Invariants invariants = new Invariants(client, ns, new WebhookCloud(webhook));
      create(kube, ns, "steady");
      try (PierProcess pier = FaultSuite.startJar(kube, "provider", env)) {
        invariants.awaitHeld(PierProcess.STARTUP.plus(CONVERGE));
        int port = 80;
        for (Fault fault :
            List.of(Fault.TOO_MANY_REQUESTS, Fault.SERVER_ERROR, Fault.HANG, Fault.TRICKLE)) {
          String fresh = "new-" + fault.name().toLowerCase().replace('_', '-');
          double deadlinesBefore = deadlines(pier);
          proxy.fault(fault);
          create(kube, ns, fresh);
          int newPort = ++port;
          Services.edit(
              client,
              ns,
              "steady",
              s -> {
                s.getSpec().getPorts().get(0).setPort(newPort);
                return s;
              });
          Thread.sleep(FAULT.toMillis());
          List<Call> calls = faulted(proxy, fault, fresh);
          switch (fault) {
            case TOO_MANY_REQUESTS ->
                // every retry waits the Retry-After of 1 s
                assertThat(gaps(calls))
                    .as(fault + ": " + calls)
                    .isNotEmpty()
                    .allMatch(g -> g >= 900);
            case SERVER_ERROR -> {
              // retried, and the waits grow: no hot loop at the minimum delay
              assertThat(calls).as(fault.name()).hasSizeBetween(3, 16);
              assertThat(gaps(calls).stream().mapToLong(g -> g).max().orElse(0))
                  .as(fault + ": the largest wait " + calls)
                  .isGreaterThanOrEqualTo(1500);
            }
            default -> {
              // each hung call ended at the deadline, and the Service was tried again: the
              // client's own retry alone would make two calls too, so the deadline must have fired
              assertThat(calls).as(fault.name()).hasSizeGreaterThanOrEqualTo(2);
              assertThat(deadlines(pier))
                  .as(fault + ": provider calls ended by reconcile.providerCallDeadline")
                  .isGreaterThan(deadlinesBefore);
            }
          }
          proxy.fault(Fault.NONE);
          invariants.awaitHeld(CONVERGE);
        }
        invariants.awaitSettled(CONVERGE);
        assertThat(pier.alive()).as(pier.log()).isTrue();
      }
    }
  }

  /** Provider calls that reconcile.providerCallDeadline ended, from Pier's /metrics. */
  private static double deadlines(PierProcess pier) {
    return pier.metrics()
        .lines()
        .filter(l -> l.startsWith("pier_provider_call_duration_seconds_count{"))
        .filter(l -> l.contains("result=\"deadline_exceeded\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  /** The calls for one Service that got the fault. */
  private static List<Call> faulted(FaultProxy proxy, Fault fault, String name) {
    return proxy.calls().stream()
        .filter(c -> c.fault() == fault && c.body().contains("\"name\":\"" + name + "\""))
        .toList();
  }

  /** Milliseconds between consecutive calls. */
  private static List<Long> gaps(List<Call> calls) {
    return java.util.stream.IntStream.range(1, calls.size())
        .mapToObj(i -> Duration.between(calls.get(i - 1).at(), calls.get(i).at()).toMillis())
        .toList();
  }

  private static void create(KubeApiServer kube, String ns, String name) {
    kube.client()
        .services()
        .inNamespace(ns)
        .resource(loadBalancer(ns, name, 80, kube.freeNodePort()))
        .create();
  }
}
