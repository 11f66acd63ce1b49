package dev.pier.faults;

import static dev.pier.faults.FaultSuite.CONVERGE;
import static dev.pier.faults.FaultSuite.loadBalancer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PierProcess;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault suite: malformed input. 32 Services the local provider cannot serve (an address outside its
 * pools, not an address at all, a protocol it does not speak) next to good ones: each bad one gets
 * a Warning Event naming the field and value and no load balancer, and the good ones get theirs,
 * among them one with a TCP and a UDP port on one pool address: the invariants see both its
 * listeners in the kernel's tables while it exists (a UDP socket Pier forgot to open is a lost
 * update) and neither once it is deleted (one left open is a leaked load balancer). Bad
 * configuration values stop the jar at startup with an error naming the option and the value.
 */
@RealKubeApiServer
class MalformedInputIT {
  private static final String POOL = "127.231.0.0/28";
  private static final Duration EXIT = Duration.ofSeconds(60);
  private static final String MIXED = "good-tcp-udp";
  private static final int MIXED_PORT = 18153;

  @Test
  void everyMalformedServiceIsAnsweredByAWarningAndTheGoodOnesGetLoadBalancers(KubeApiServer kube)
      throws InterruptedException {
    KubernetesClient client = kube.client();
    kube.createReadyNode(FaultSuite.NODE, "127.0.0.1", Map.of());
    String ns = kube.createNamespace("malformed");
    LocalListeners listeners = new LocalListeners("127.231.0.");
    Invariants invariants = new Invariants(client, ns, listeners);
    List<Service> services = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      Service s = loadBalancer(ns, "outside-" + i, 80, kube.freeNodePort());
      s.getSpec().setLoadBalancerIP("10.77.0." + (i + 1));
      services.add(s);
      invariants.badInput("outside-" + i, "spec.loadBalancerIP 10.77.0." + (i + 1) + " is outside");
    }
    for (int i = 0; i < 10; i++) {
      Service s = loadBalancer(ns, "no-ip-" + i, 80, kube.freeNodePort());
      s.getSpec().setLoadBalancerIP("not-an-address-" + i);
      services.add(s);
      invariants.badInput("no-ip-" + i, "not-an-address-" + i + " is not an IP address");
    }
    for (int i = 0; i < 10; i++) {
      Service s = loadBalancer(ns, "sctp-" + i, 80, kube.freeNodePort());
      s.getSpec().getPorts().get(0).setProtocol("SCTP");
      services.add(s);
      invariants.badInput("sctp-" + i, "spec.ports[0].protocol SCTP is not supported");
    }
    for (int i = 0; i < 4; i++) {
      services.add(loadBalancer(ns, "good-" + i, 18180 + i, kube.freeNodePort()));
    }
    // TCP and UDP on one port number, as a DNS server has them.
    Service mixed = loadBalancer(ns, MIXED, MIXED_PORT, kube.freeNodePort());
    mixed
        .getSpec()
        .getPorts()
        .add(
            new ServicePortBuilder()
                .withName("udp" + MIXED_PORT)
                .withProtocol("UDP")
                .withPort(MIXED_PORT)
                .withNodePort(kube.freeNodePort())
                .build());
    services.add(mixed);
    java.util.Collections.shuffle(services);
    services.forEach(s -> client.services().inNamespace(ns).resource(s).create());

    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.PROVIDER.envName(), "local");
    env.put(PierOptions.LOCAL_POOLS.envName(), POOL);
    try (PierProcess pier = FaultSuite.startJar(kube, "malformed", env)) {
      invariants.awaitHeld(PierProcess.STARTUP.plus(CONVERGE));
      // Held: the mixed Service's address has both listeners, UDP among them.
      String ip = Services.ingressIp(client, ns, MIXED);
      assertThat(listeners.loadBalancers().get(ip))
          .as("the kernel's listeners on %s, the address of %s", ip, MIXED)
          .containsExactlyInAnyOrder("TCP/" + MIXED_PORT, "UDP/" + MIXED_PORT);
      client.services().inNamespace(ns).withName(MIXED).delete();
      invariants.deleted(MIXED);
      // Settled: gone, with nothing left listening on its address, of either protocol.
      invariants.awaitSettled(CONVERGE);
      assertThat(listeners.loadBalancers()).as("listeners on %s", ip).doesNotContainKey(ip);
      assertThat(pier.alive()).as(pier.log()).isTrue();
    }
  }

  @Test
  void everyBadConfigurationValueStopsTheJarNamingTheOptionAndTheValue(
      KubeApiServer kube, @TempDir Path dir) throws IOException {
    Map<String, String> badVariables = new LinkedHashMap<>();
    badVariables.put(PierOptions.RECONCILE_CONCURRENCY.envName(), "0");
    badVariables.put(PierOptions.LOCAL_POOLS.envName(), "not-a-cidr");
    badVariables.put(PierOptions.RECONCILE_PROVIDER_CALL_DEADLINE.envName(), "1ms");
    badVariables.put(PierOptions.RECONCILE_MIN_RETRY_DELAY.envName(), "fast");
    badVariables.put(PierOptions.PROVIDER.envName(), "nope");
    badVariables.put(PierOptions.ADMIN_PORT.envName(), "70000");
    badVariables.put(PierOptions.LEADER_ELECTION_ENABLED.envName(), "maybe");
    badVariables.put(PierOptions.DNS_TTL.envName(), "0");
    List<String> unanswered = new ArrayList<>();
    badVariables.forEach(
        (variable, value) -> {
          Map<String, String> env = new HashMap<>();
          env.put(variable, value);
          String answer =
              startAndFail(kube, "bad-" + variable.toLowerCase(), FaultSuite.jarConfig(), env);
          if (!answer.contains(variable) || !answer.contains("'" + value + "'")) {
            unanswered.add(variable + "=" + value + ": " + answer);
          }
        });
    // A bad value in the file is named by its path.
    Path file = dir.resolve("pier.yaml");
    Files.writeString(
        file,
        Files.readString(FaultSuite.jarConfig()).replace("concurrency: 200", "concurrency: -5"));
    String answer = startAndFail(kube, "bad-file", file, Map.of());
    if (!answer.contains("reconcile.concurrency") || !answer.contains("'-5'")) {
      unanswered.add("reconcile.concurrency: -5 in the file: " + answer);
    }
    assertThat(unanswered).as("bad values not named at startup").isEmpty();
  }

  /** Starts the jar, expects it to exit non-zero, and returns what it logged. */
  private static String startAndFail(
      KubeApiServer kube, String name, Path config, Map<String, String> env) {
    try (PierProcess pier = FaultSuite.startJar(kube, name, config, env)) {
      int code = pier.waitForExit(EXIT);
      return code == 0 || code == -1 ? "exit code " + code + "\n" + pier.log() : pier.log();
    }
  }
}
