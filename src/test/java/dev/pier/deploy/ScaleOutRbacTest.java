package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.FreePorts;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Kubectl;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.ScaleOutCredentials;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Scale-out run with the identity of the shipped ServiceAccount, bound by the base {@code
 * rbac.yaml} plus the add-on {@code scale-out.yaml} and nothing else: Pier takes, renews and
 * releases its shard Leases and its replica Lease. The audit log then shows that nothing was
 * denied, that nothing beyond the two files was used and every permission of the add-on was; and
 * the add-on grants nothing outside Pier's namespace.
 */
@RealKubeApiServer(
    auditLog = true,
    users =
        @RealKubeApiServer.User(
            token = ScaleOutRbacTest.TOKEN,
            name = ScaleOutRbacTest.USER,
            groups = {"system:serviceaccounts", "system:serviceaccounts:pier"}))
class ScaleOutRbacTest {
  static final String TOKEN = "pier-scale-out-service-account-token";
  static final String USER = "system:serviceaccount:pier:pier";
  private static final String NS = "pier";
  private static final Path BASE = Manifests.DIR.resolve("rbac.yaml");
  private static final Path ADD_ON = Manifests.DIR.resolve("scale-out.yaml");

  @Test
  void baseAndScaleOutAddOnAreEnoughForTheLeasesAndGrantNothingUnused(KubeApiServer kube)
      throws IOException {
    Kubectl kubectl = new Kubectl(kube);
    kubectl.check("apply", "-f", Manifests.DIR.resolve("namespace.yaml").toString());
    kubectl.check("apply", "-f", BASE.toString(), "-f", ADD_ON.toString());
    Set<String> granted = RbacAudit.granted(ADD_ON);

    int port = FreePorts.take();
    try (InProcessPier pier = InProcessPier.start(kube, env(kube, port))) {
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> RbacAudit.used(kube, USER).contains("coordination.k8s.io/leases:update"));
    }

    await()
        .atMost(InProcessPier.CONVERGE)
        .untilAsserted(() -> assertThat(RbacAudit.used(kube, USER)).containsAll(granted));
    assertThat(RbacAudit.denied(kube, USER)).as("requests RBAC denied to Pier").isEmpty();
    assertThat(RbacAudit.deprecated(kube, USER)).as("Pier's requests of deprecated APIs").isEmpty();
    assertThat(RbacAudit.granted(BASE, ADD_ON))
        .as("what rbac.yaml and scale-out.yaml grant")
        .containsAll(RbacAudit.used(kube, USER));
    // Only Leases, only in Pier's namespace: discovery asks the cluster's DNS, not the API.
    assertThat(canI(kubectl, "list", "endpointslices.discovery.k8s.io", NS)).isEqualTo("no");
    assertThat(canI(kubectl, "get", "endpoints", NS)).isEqualTo("no");
    assertThat(canI(kubectl, "list", "pods", NS)).isEqualTo("no");
    assertThat(canI(kubectl, "get", "pods", "default")).isEqualTo("no");
    assertThat(canI(kubectl, "update", "leases.coordination.k8s.io", NS)).isEqualTo("yes");
    assertThat(canI(kubectl, "update", "leases.coordination.k8s.io", "default")).isEqualTo("no");
  }

  /** kubectl auth can-i as Pier's ServiceAccount: its last line, yes or no. */
  private static String canI(Kubectl kubectl, String verb, String resource, String namespace) {
    List<String> lines =
        kubectl
            .run("auth", "can-i", verb, resource, "-n", namespace, "--as", USER)
            .output()
            .lines()
            .toList();
    return lines.isEmpty() ? "" : lines.get(lines.size() - 1).strip();
  }

  /** A replica on a static member list of itself: the shard Leases are what is checked here. */
  private static Map<String, String> env(KubeApiServer kube, int port) {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.CLUSTER_KUBECONFIG.envName(), kube.kubeconfigFor(TOKEN).toString());
    env.put(PierOptions.LOCAL_POOLS.envName(), "127.243.3.0/24");
    env.put(PierOptions.LEADER_ELECTION_ENABLED.envName(), "false");
    env.put(PierOptions.LEADER_ELECTION_NAMESPACE.envName(), NS);
    env.put(PierOptions.SCALE_OUT_ENABLED.envName(), "true");
    env.put(PierOptions.SCALE_OUT_HOST.envName(), "127.0.0.1");
    env.put(PierOptions.SCALE_OUT_PORT.envName(), Integer.toString(port));
    env.put(PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:" + port);
    env.put(PierOptions.SCALE_OUT_HEARTBEAT_TIMEOUT.envName(), "2s");
    env.put(PierOptions.SCALE_OUT_LEASE_DURATION.envName(), "4s");
    env.put(PierOptions.SCALE_OUT_RENEW_DEADLINE.envName(), "3s");
    env.put(PierOptions.SCALE_OUT_RETRY_PERIOD.envName(), "500ms");
    env.put(PierOptions.SCALE_OUT_EVENT_BUS_PORT.envName(), "0");
    env.putAll(ScaleOutCredentials.shared().env());
    return env;
  }
}
