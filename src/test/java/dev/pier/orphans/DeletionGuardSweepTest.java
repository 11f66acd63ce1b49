package dev.pier.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.boot.PierOptions;
import dev.pier.cloud.hetzner.FakeHetznerCloud;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A sweep that finds many orphans at once (a wrong cluster name, a cache that came up empty)
 * deletes a few, holds the rest and says so, until the operator confirms.
 */
@RealKubeApiServer
class DeletionGuardSweepTest {
  private static final String TOKEN = "guard-token-0123456789";

  private static KubeApiServer kube;
  private static FakeHetznerCloud cloud;
  private static Path tokenFile;

  @BeforeAll
  static void setUp(KubeApiServer server) throws Exception {
    kube = server;
    cloud = FakeHetznerCloud.start(TOKEN);
    tokenFile = Files.createTempFile("hcloud-token", ".txt");
    Files.writeString(tokenFile, TOKEN + "\n");
  }

  @AfterAll
  static void tearDown() throws Exception {
    cloud.close();
    Files.deleteIfExists(tokenFile);
  }

  private static InProcessPier startPier(boolean confirm) {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.PROVIDER.envName(), "hetzner");
    env.put(PierOptions.HETZNER_ENDPOINT.envName(), cloud.endpoint());
    env.put(PierOptions.HETZNER_TOKEN_FILE.envName(), tokenFile.toString());
    env.put(PierOptions.HETZNER_ACTION_POLL_INTERVAL.envName(), "50ms");
    env.put(PierOptions.HETZNER_ORPHAN_CLEANUP.envName(), "true");
    env.put(PierOptions.HETZNER_ORPHAN_CLEANUP_PERIOD.envName(), "1s");
    env.put(PierOptions.DELETION_GUARD_MIN_DELETIONS.envName(), "3");
    env.put(PierOptions.DELETION_GUARD_MAX_PERCENT.envName(), "10");
    env.put(PierOptions.DELETION_GUARD_CONFIRM.envName(), String.valueOf(confirm));
    return InProcessPier.start(kube, env);
  }

  private static long orphans() {
    return cloud.loadBalancers().stream()
        .filter(l -> l.getString("name").startsWith("orphan-"))
        .count();
  }

  private static String readyz(InProcessPier pier) throws Exception {
    HttpResponse<String> r =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + pier.pier().adminPort() + "/readyz"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("/readyz stays 200").isEqualTo(200);
    return r.body();
  }

  @Test
  void aMassSweepIsHeldUntilTheOperatorConfirms() throws Exception {
    String ns = kube.createNamespace("gone");
    for (int i = 0; i < 12; i++) {
      cloud.createDirect(
          "orphan-" + i,
          Map.of(
              "hcloud-ccm/service-uid",
              "0000-gone-" + i,
              "pier.dev/cluster",
              "kubernetes",
              "pier.dev/cluster-uid",
              kube.client().namespaces().withName("kube-system").get().getMetadata().getUid(),
              "pier.dev/namespace",
              ns,
              "pier.dev/name",
              "svc-" + i),
          false);
    }
    try (InProcessPier pier = startPier(false)) {
      await().atMost(InProcessPier.CONVERGE).until(() -> orphans() == 9);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(() -> readyz(pier).contains("9 deletion(s) held by the deletion guard"));
      Thread.sleep(2_500);
      assertThat(orphans()).as("held across later sweeps").isEqualTo(9);
      assertThat(pier.pier().metrics().registry().get("pier.deletion.guard.held").gauge().value())
          .isEqualTo(9.0);
      await()
          .atMost(InProcessPier.CONVERGE)
          .until(
              () ->
                  kube.client().v1().events().inNamespace(ns).list().getItems().stream()
                          .filter(e -> "LoadBalancerDeletionHeld".equals(e.getReason()))
                          .count()
                      == 9);
    }
    try (InProcessPier pier = startPier(true)) {
      await().atMost(InProcessPier.CONVERGE).until(() -> orphans() == 0);
      assertThat(readyz(pier)).doesNotContain("held");
    }
  }
}
